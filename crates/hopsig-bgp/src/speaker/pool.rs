//! The speaker's worker pool: the threads that sign announcements and validate
//! received BGPsec UPDATEs for the RIB task, on hopsig's one executor
//! ([`hopsig_primitives::par::Pool`]). Its interface is [`Pool::new`], [`Pool::sign`]
//! and [`Pool::validate`]; what a job does is the job's own ([`SignJob::run`],
//! [`ValidateJob::run_all`]). Answers go back to the RIB task as [`Event`]s.
//!
//! A worker takes up to `MAX_BATCH` queued jobs of one priority at once; the
//! validation jobs among them are validated together, their UPDATEs' signatures
//! verified in one batch of the suites' batch backends (the multi-buffer P-256
//! verifier fills its lanes from several UPDATEs, not one path's 3–5 signatures,
//! [`crate::prefetch`]), each answer the one its job has alone. Jobs are answered in
//! the order taken, as before.
//!
//! Validation uses the RPKI view current when the job runs ([`SharedView`]), not the
//! one when it was queued, and each answer names that view's generation, so that the
//! RIB can tell an answer older than the view it must agree with.
//!
//! The workers share one signature cache ([`SignatureCache`], the configuration's
//! `signature_cache`): a route received from several neighbours, or announced again,
//! has its signatures verified once. Keys are still looked up in the current view
//! for each job, so a key withdrawn from the RPKI stops validating at once.

use std::ops::ControlFlow;
use std::sync::{Arc, PoisonError, RwLock};

use hopsig_primitives::par::{self, Full, Panicked, Priority};
use tokio::sync::mpsc::UnboundedSender;

use super::events::{AnnounceError, Event, Signed, Validated};
use super::rib::{SignJob, ValidateJob};
use crate::cache::SignatureCache;
use crate::rpki::view::View;
use crate::{RouterKeys, Validator};

/// The current RPKI view and its generation (1 for the first, one more for each
/// replacement), shared by the RIB task, which replaces it, and the workers, which
/// read it for each job. A lock held only to clone or swap an `Arc`.
#[derive(Clone)]
pub struct SharedView(Arc<RwLock<(u64, Arc<View>)>>);

impl SharedView {
    /// `view` as generation 1.
    pub fn new(view: Arc<View>) -> SharedView {
        SharedView(Arc::new(RwLock::new((1, view))))
    }

    /// The current view and its generation.
    pub fn current(&self) -> (u64, Arc<View>) {
        let held = self.0.read().unwrap_or_else(PoisonError::into_inner);
        (held.0, Arc::clone(&held.1))
    }

    /// Replaces the view; the new generation.
    pub fn replace(&self, view: Arc<View>) -> u64 {
        let mut held = self.0.write().unwrap_or_else(PoisonError::into_inner);
        *held = (held.0 + 1, view);
        held.0
    }
}

/// Most jobs a worker takes at once: it sends their answers together, so the RIB
/// task, woken by the first, finds the others waiting instead of sleeping and being
/// woken for each — under a burst that wake-up cost as much as a signature. A lone
/// job is taken alone, so it waits for no other.
const MAX_BATCH: usize = 16;

/// Jobs the pool holds at most. The RIB hands every job over as it comes (its
/// back-pressure is the sessions' bounded output queues, docs/spec/speaker.md), so
/// the pool is not what bounds them.
const CAPACITY: usize = usize::MAX;

/// A job for a worker.
enum Job {
    Sign(SignJob),
    Validate(ValidateJob),
}

/// The worker threads: each takes the next sign jobs ([`Priority::First`]), or if
/// there are none the next validation jobs — validated with every suite hopsig has
/// ([`crate::SUITES`]) and the router keys of the current view — and reports back. Signing goes first
/// because a forwarded route is what lazy mode is for; a validation waits at most for
/// the sign jobs queued before it is taken up.
pub struct Pool {
    workers: par::Pool<Job>,
    view: SharedView,
    answers: UnboundedSender<Event>,
    cache: Arc<SignatureCache>,
}

impl Pool {
    /// Starts `threads` workers answering on `answers`, without a signature cache
    /// (one that is off: it counts the signatures verified).
    pub fn new(
        threads: usize,
        view: impl Into<SharedView>,
        answers: UnboundedSender<Event>,
    ) -> Pool {
        Pool::with_signature_cache(threads, view, Arc::new(SignatureCache::off()), answers)
    }

    /// Starts `threads` workers sharing the signature cache `cache`, answering on
    /// `answers`.
    pub fn with_signature_cache(
        threads: usize,
        view: impl Into<SharedView>,
        cache: Arc<SignatureCache>,
        answers: UnboundedSender<Event>,
    ) -> Pool {
        let view = view.into();
        let (work_view, complete_answers) = (view.clone(), answers.clone());
        let work_cache = Arc::clone(&cache);
        let workers = par::Pool::batched(
            threads,
            CAPACITY,
            MAX_BATCH,
            move |jobs: &[Job]| answer_all(jobs, &work_view, &work_cache),
            move |job, answered| {
                let event = answered.unwrap_or_else(|p| failed(job, p));
                match complete_answers.send(event) {
                    Ok(()) => ControlFlow::Continue(()),
                    Err(_) => ControlFlow::Break(()),
                }
            },
        );
        Pool {
            workers,
            view,
            answers,
            cache,
        }
    }

    /// The signature cache the workers share.
    pub fn signature_cache(&self) -> &SignatureCache {
        &self.cache
    }

    /// The view the workers validate with.
    pub fn view(&self) -> &SharedView {
        &self.view
    }

    /// Queues a sign job: it goes ahead of every validation.
    pub(crate) fn sign(&self, job: SignJob) {
        self.submit(Priority::First, Job::Sign(job));
    }

    /// Queues validation jobs.
    pub(crate) fn validate(&self, jobs: Vec<ValidateJob>) {
        for job in jobs {
            self.submit(Priority::Then, Job::Validate(job));
        }
    }

    fn submit(&self, priority: Priority, job: Job) {
        // A job the pool refuses (none with CAPACITY = usize::MAX) is done here, on
        // the RIB's task, rather than lost.
        if let Err(Full(job)) = self.workers.try_submit(priority, job) {
            // The RIB task is gone if this fails: nothing is left to answer.
            let _ = self.answers.send(answer(job, &self.view, &self.cache));
        }
    }
}

/// Router keys alone (files only, as before RTR): a view of them, generation 1.
impl From<Arc<RouterKeys>> for SharedView {
    fn from(keys: Arc<RouterKeys>) -> SharedView {
        SharedView::new(Arc::new(View::from_router_keys(Arc::unwrap_or_clone(keys))))
    }
}

/// The job's answer; a validation with the view current now and the shared cache.
fn answer(job: Job, view: &SharedView, cache: &SignatureCache) -> Event {
    let answer = answer_all(std::slice::from_ref(&job), view, cache).pop();
    answer.unwrap_or_else(|| failed(job, Panicked("no answer".into())))
}

/// The answers of the jobs a worker took, in order: sign jobs one by one, validation
/// jobs together — with the view current now and the shared cache, their UPDATEs'
/// signatures verified in one batch ([`ValidateJob::run_all`]), each verdict the one
/// its job has alone.
fn answer_all(jobs: &[Job], view: &SharedView, cache: &SignatureCache) -> Vec<Event> {
    let validate: Vec<&ValidateJob> = jobs
        .iter()
        .filter_map(|j| match j {
            Job::Validate(v) => Some(v),
            Job::Sign(_) => None,
        })
        .collect();
    let mut validated = if validate.is_empty() {
        Vec::new()
    } else {
        let (generation, view) = view.current();
        let validator = Validator::with_suites(crate::SUITES, view.router_keys()).with_cache(cache);
        ValidateJob::run_all(&validate, &validator, generation)
    }
    .into_iter();
    // One answer per job (run_all answers each of its jobs); were one missing, the
    // pool would run each job again alone.
    jobs.iter()
        .filter_map(|job| match job {
            Job::Sign(j) => Some(Event::Signed(j.run())),
            Job::Validate(_) => validated.next().map(Event::Validated),
        })
        .collect()
}

/// The answer to a job whose work panicked (a bug in hopsig): the announcement is not
/// sent, the route is not deemed 'Valid' — and the RIB's count of jobs out stays right.
fn failed(job: Job, p: Panicked) -> Event {
    match job {
        Job::Sign(j) => Event::Signed(Signed {
            session: j.session,
            prefix: j.announce.prefix,
            number: j.number,
            result: Err(AnnounceError::Internal(p.0)),
        }),
        Job::Validate(j) => Event::Validated(Validated {
            neighbor: j.neighbor,
            prefix: j.prefix,
            seq: j.seq,
            job: j.job,
            generation: 0,
            result: Err(p.0),
        }),
    }
}
