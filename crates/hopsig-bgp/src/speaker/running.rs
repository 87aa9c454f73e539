//! The running speaker's sessions and RPKI task, and a configuration reload applied
//! to them (issue 26 §4, docs/spec/speaker.md "Reload"): the new configuration read
//! and checked, its [`reload::plan`] made, everything it needs prepared (signers,
//! RPKI files, the prefixes originated) — any failure refuses it, nothing changed —
//! then applied: sessions started, stopped (Cease / Peer De-configured) and reset
//! (Cease / Other Configuration Change, RFC 4486 §4), policy applied by the RIB,
//! the RPKI view rebuilt and the caches restarted. Each reload is logged (event
//! `config_reload`), counted (`hopsig_speaker_config_reloads_total{result}`) and
//! answered in the result file ([`control::reload_result_file`]).

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{json, Value};
use tokio::net::TcpStream;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;

use super::config::{Config, Neighbor};
use super::events::Event;
use super::reload::{self, Plan, Refused};
use super::rib::reconfigure::PolicyApplied;
use super::rib::{Policy, Rib, Rules, Session};
use super::session::{self, Stop};
use super::{control, originate, signer_for, status};
use crate::packet::iana::CeaseSubcode;
use crate::packet::{ErrorCode, Notification};
use crate::rpki::rtr::CacheView;
use crate::rpki::source::{self, FileSources};
use crate::rpki::view::View;
use crate::rpki::PayloadSet;
use crate::Signer;

/// Where the listener hands each neighbour's connections, by address.
pub type Incoming = HashMap<IpAddr, mpsc::Sender<TcpStream>>;

/// A session task.
struct Handle {
    /// Tells it to end.
    stop: mpsc::Sender<Stop>,
    /// The task.
    task: JoinHandle<()>,
    /// Where the listener hands it connections.
    incoming: mpsc::Sender<TcpStream>,
}

/// What triggered a reload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trigger {
    /// SIGHUP.
    Signal,
    /// `hopsig speaker reload` (the request file).
    Request,
}

impl Trigger {
    fn name(self) -> &'static str {
        match self {
            Trigger::Signal => "signal",
            Trigger::Request => "request",
        }
    }
}

/// The sessions, the RPKI task and the configuration in force.
pub struct Running {
    /// The configuration in force.
    pub config: Config,
    /// The file it came from, read again on SIGHUP.
    path: Option<PathBuf>,
    /// What every session knows of this side.
    local: session::Local,
    /// The RIB task's queue.
    events: mpsc::UnboundedSender<Event>,
    /// The session tasks by session number; `None` once removed.
    sessions: Vec<Option<Handle>>,
    /// The session number of each neighbour of `config`, in order.
    ids: Vec<usize>,
    /// The listener's view of [`Incoming`].
    incoming: watch::Sender<Arc<Incoming>>,
    /// The RPKI task and the caches' view it follows.
    rpki: Option<(JoinHandle<()>, watch::Receiver<Arc<CacheView>>)>,
    /// Reloads done (applied or refused).
    generation: u64,
    /// The last outcomes, for the result file.
    outcomes: VecDeque<Value>,
}

impl Running {
    /// Starts a session task for each neighbour of `config` (whose sessions are the
    /// RIB's first ones, in order) and, with RTR caches, the RPKI task over the file
    /// sources `files`. `path`: the configuration file, read again on SIGHUP.
    pub fn start(
        config: Config,
        path: Option<PathBuf>,
        local: session::Local,
        events: mpsc::UnboundedSender<Event>,
        files: FileSources,
    ) -> Running {
        let (incoming, _) = watch::channel(Arc::new(Incoming::new()));
        let mut running = Running {
            config,
            path,
            local,
            events,
            sessions: vec![],
            ids: vec![],
            incoming,
            rpki: None,
            generation: 0,
            outcomes: VecDeque::new(),
        };
        for n in running.config.neighbors.clone() {
            let id = running.sessions.len();
            let handle = running.spawn(id, n, None);
            running.sessions.push(Some(handle));
            running.ids.push(id);
        }
        running.publish_incoming();
        running.rpki = running.spawn_rpki(files, None);
        running
    }

    /// The listener's view of where each neighbour's connections go.
    pub fn incoming(&self) -> watch::Receiver<Arc<Incoming>> {
        self.incoming.subscribe()
    }

    /// Starts the session task of neighbour `n` as session `id`, once `after` (the
    /// task of the session it replaces) has ended: the old one tells the RIB it is
    /// down before the new one says anything.
    fn spawn(&self, id: usize, n: Neighbor, after: Option<JoinHandle<()>>) -> Handle {
        let (tx, rx) = mpsc::channel(4);
        let (stop, stopped) = mpsc::channel(1);
        // Checked by `Config::from_toml_str`.
        let next_hop6 = self.config.next_hop6_for(&n).ok().flatten();
        let local = session::Local {
            next_hop6,
            ..self.local.clone()
        };
        let events = self.events.clone();
        let task = tokio::spawn(async move {
            if let Some(old) = after {
                let _ = old.await;
            }
            session::run(id, n, local, rx, events, stopped).await;
        });
        Handle {
            stop,
            task,
            incoming: tx,
        }
    }

    /// Publishes where each neighbour's connections go: active neighbours too (their
    /// connections collide, RFC 4271 §6.8). A connection is told apart by its
    /// address only: where several neighbours share one (speakers on ::1 in a lab),
    /// a passive one takes it, as before collision detection, since an active one
    /// also has its own connection.
    fn publish_incoming(&self) {
        let mut map = Incoming::new();
        for (n, &id) in self.config.neighbors.iter().zip(&self.ids) {
            let Some(Some(h)) = self.sessions.get(id) else {
                continue;
            };
            if n.passive {
                map.insert(n.address, h.incoming.clone());
            } else {
                map.entry(n.address).or_insert(h.incoming.clone());
            }
        }
        self.incoming.send_replace(Arc::new(map));
    }

    /// With RTR caches in `config`, the RPKI task over `files`, following `caches`
    /// (the running ones) or new ones.
    fn spawn_rpki(
        &self,
        files: FileSources,
        caches: Option<watch::Receiver<Arc<CacheView>>>,
    ) -> Option<(JoinHandle<()>, watch::Receiver<Arc<CacheView>>)> {
        if self.config.rpki.cache.is_empty() {
            return None;
        }
        let limits = self.config.rpki.limits.limits();
        let caches = caches.unwrap_or_else(|| {
            crate::rpki::rtr::spawn_caches(self.config.rpki.cache.clone(), limits)
        });
        let task = tokio::spawn(super::rpki(
            files,
            caches.clone(),
            limits,
            self.events.clone(),
        ));
        Some((task, caches))
    }

    /// Takes the reload requests of `hopsig speaker reload` and applies each.
    pub fn take_requests(&mut self, rib: &mut Rib) {
        for (token, path) in control::take_reloads(&self.config.state_file) {
            // The file this speaker runs from, named absolutely: read as it was
            // named at start, so that relative names in it resolve as they did.
            let own = self
                .path
                .as_ref()
                .is_some_and(|own| std::path::absolute(own).ok().as_ref() == Some(&path));
            let path = if own { self.path.clone() } else { Some(path) };
            self.reload(rib, path, Trigger::Request, Some(token));
        }
    }

    /// SIGHUP: reads the configuration file again and applies it.
    pub fn hangup(&mut self, rib: &mut Rib) {
        let path = self.path.clone();
        self.reload(rib, path, Trigger::Signal, None);
    }

    /// Reads `path`, applies it or refuses it, logs, counts and answers.
    fn reload(
        &mut self,
        rib: &mut Rib,
        path: Option<PathBuf>,
        trigger: Trigger,
        token: Option<String>,
    ) {
        self.generation += 1;
        let outcome = match path {
            None => Err(Refused::Invalid(
                "the speaker was started without a configuration file".into(),
            )),
            Some(p) => self.try_reload(rib, &p).map(|summary| (p, summary)),
        };
        let (result, reason, summary) = match outcome {
            Ok((p, summary)) => {
                self.path = Some(p);
                ("applied", None, summary)
            }
            Err(e) => ("refused", Some(e.to_string()), Summary::default()),
        };
        metrics::counter!("hopsig_speaker_config_reloads_total", "result" => result).increment(1);
        let text = summary.text();
        super::logs::ConfigReload {
            generation: self.generation,
            trigger: trigger.name(),
            refused: reason.as_deref(),
            added: &summary.added,
            removed: &summary.removed,
            changed: &summary.changed,
            reset: &summary.reset,
            rpki: summary.rpki,
            originate: summary.originate,
            summary: &text,
        }
        .log();
        let generation = self.generation;
        let value = json!({
            "token": token,
            "generation": generation,
            "trigger": trigger.name(),
            "result": result,
            "reason": reason,
            "added": summary.added,
            "removed": summary.removed,
            "changed": summary.changed,
            "reset": summary.reset,
            "rpki": summary.rpki,
            "originate": summary.originate,
            "at": crate::router_key::unix_now(),
        });
        self.outcomes.push_back(value);
        while self.outcomes.len() > control::RESULTS_KEPT {
            self.outcomes.pop_front();
        }
        let file = control::reload_result_file(&self.config.state_file);
        let all = Value::Array(self.outcomes.iter().cloned().collect());
        if let Err(e) = status::write(&file, &all) {
            tracing::warn!("hopsig speaker: {}: {e}", file.display());
        }
    }

    /// Reads, checks, plans, prepares and applies the configuration at `path`.
    fn try_reload(&mut self, rib: &mut Rib, path: &Path) -> Result<Summary, Refused> {
        let new = reload::load(path)?;
        let plan = reload::plan(&self.config, &new)?;
        let ready = self.prepare(&new, &plan)?;
        Ok(self.apply(rib, new, &plan, ready))
    }

    /// Everything `plan` needs that can fail, before anything changes.
    fn prepare(&self, new: &Config, plan: &Plan) -> Result<Ready, Refused> {
        let unusable = |e: &dyn std::fmt::Display| Refused::Unusable(e.to_string());
        let mut signers = HashMap::new();
        for &j in plan.added.iter().chain(plan.resets().map(|c| &c.new)) {
            let signer = signer_for(new, &new.neighbors[j]).map_err(|e| unusable(&e))?;
            signers.insert(j, Arc::new(signer));
        }
        let rpki = if plan.rpki.is_empty() {
            None
        } else {
            let limits = new.rpki.limits.limits();
            let files = source::load_all(&new.rpki_files(), crate::router_key::unix_now(), &limits)
                .map_err(|e| unusable(&e))?;
            // Caches unchanged: their data stays in the view.
            let keep = reload::caches_kept(&self.config, new);
            let data = match (&self.rpki, keep) {
                (Some((_, caches)), true) => Some(Arc::clone(&*caches.borrow())),
                _ => None,
            };
            let none = PayloadSet::new();
            let payload = data.as_ref().map_or(&none, |d| &d.payload);
            let view = View::build(&files.payload, payload, &files.slurm, &limits)
                .map_err(|e| unusable(&format!("RPKI files: {e}")))?;
            Some((files, Arc::new(view), keep))
        };
        let local = if plan.originate.is_empty() {
            None
        } else {
            Some(originate::prefixes(new).map_err(|e| unusable(&e))?)
        };
        Ok(Ready {
            signers,
            rpki,
            local,
        })
    }

    /// Applies `plan` (to `new`) with what [`Running::prepare`] made.
    fn apply(&mut self, rib: &mut Rib, new: Config, plan: &Plan, mut ready: Ready) -> Summary {
        let mut summary = Summary::default();
        let old = std::mem::replace(&mut self.config, new);
        let mut ids = vec![usize::MAX; self.config.neighbors.len()];
        for &(i, j) in &plan.kept {
            ids[j] = self.ids[i];
        }
        for &i in &plan.removed {
            let id = self.ids[i];
            rib.remove_session(id);
            if let Some(h) = self.sessions.get_mut(id).and_then(Option::take) {
                stop(
                    &h,
                    CeaseSubcode::PeerDeconfigured,
                    "neighbor removed from the configuration (RFC 4486 §4: Peer De-configured)",
                );
            }
            summary.removed.push(old.neighbors[i].address.to_string());
        }
        for c in &plan.changed {
            let id = self.ids[c.old];
            ids[c.new] = id;
            let n = self.config.neighbors[c.new].clone();
            summary.changed.push(n.address.to_string());
            let mut reset = !c.reset.is_empty();
            if !c.policy.is_empty()
                && rib.set_policy(id, Policy::of(&n), Rules::of(&n)) == PolicyApplied::NeedsReset
            {
                reset = true;
            }
            if !reset {
                continue;
            }
            let signer = match ready.signers.remove(&c.new) {
                Some(s) => s,
                // A reset for communities only: the signer is as it was.
                None => Arc::clone(&rib.sessions[id].signer),
            };
            rib.reset_session(id, n.remote_as, signer);
            summary.reset.push(n.address.to_string());
            let why = if c.reset.is_empty() {
                "add_communities".to_string()
            } else {
                c.reset.join(", ")
            };
            if let Some(h) = self.sessions.get_mut(id).and_then(Option::take) {
                stop(
                    &h,
                    CeaseSubcode::OtherConfigurationChange,
                    &format!(
                        "configuration changed: {why} (RFC 4486 §4: Other Configuration Change)"
                    ),
                );
                self.sessions[id] = Some(self.spawn(id, n, Some(h.task)));
            }
        }
        for &j in &plan.added {
            let n = self.config.neighbors[j].clone();
            let signer = match ready.signers.remove(&j) {
                Some(s) => s,
                None => Arc::new(Signer::new(self.config.local_as)),
            };
            let id = rib.add_session(
                Session::new(n.address.to_string(), n.remote_as, signer),
                Policy::of(&n),
                Rules::of(&n),
            );
            summary.added.push(n.address.to_string());
            let handle = self.spawn(id, n, None);
            if self.sessions.len() <= id {
                self.sessions.resize_with(id + 1, || None);
            }
            self.sessions[id] = Some(handle);
            ids[j] = id;
        }
        self.ids = ids;
        self.publish_incoming();
        if let Some((files, view, keep)) = ready.rpki.take() {
            let caches = match self.rpki.take() {
                Some((task, caches)) => {
                    task.abort();
                    keep.then_some(caches)
                }
                None => None,
            };
            if self.config.rpki.cache.is_empty() {
                rib.caches.clear();
            }
            rib.set_view(view);
            self.rpki = self.spawn_rpki(files, caches);
            summary.rpki = true;
        }
        if let Some(local) = ready.local.take() {
            rib.set_local(local);
            summary.originate = true;
        }
        summary
    }
}

/// Tells session `h` to end with a NOTIFICATION Cease of `subcode` (RFC 4486 §4).
fn stop(h: &Handle, subcode: CeaseSubcode, reason: &str) {
    let _ = h.stop.try_send(Stop {
        notification: Notification::new(ErrorCode::Cease, u8::from(subcode), vec![]),
        reason: reason.to_string(),
    });
}

/// What a reload prepared.
struct Ready {
    /// Signers of the neighbours added and reset, by index in the new configuration.
    signers: HashMap<usize, Arc<Signer<'static>>>,
    /// The RPKI files read again, the view built from them, whether the caches stay.
    rpki: Option<(FileSources, Arc<View>, bool)>,
    /// The prefixes to originate.
    local: Option<std::collections::BTreeSet<crate::packet::Prefix>>,
}

/// What a reload did, for the log and the result file.
#[derive(Debug, Default)]
struct Summary {
    added: Vec<String>,
    removed: Vec<String>,
    changed: Vec<String>,
    reset: Vec<String>,
    rpki: bool,
    originate: bool,
}

impl Summary {
    /// `1 added (192.0.2.2), 0 removed, 1 changed, 0 sessions reset, RPKI sources
    /// reloaded`.
    fn text(&self) -> String {
        let some = |what: &str, v: &[String]| match v.len() {
            0 => format!("0 {what}"),
            n => format!("{n} {what} ({})", v.join(", ")),
        };
        let mut t = [
            some("added", &self.added),
            some("removed", &self.removed),
            some("changed", &self.changed),
            some("sessions reset", &self.reset),
        ]
        .join(", ");
        if self.rpki {
            t.push_str(", RPKI sources reloaded");
        }
        if self.originate {
            t.push_str(", prefixes originated changed");
        }
        t
    }
}
