//! The speaker's worker pool: the threads that sign announcements and validate
//! received BGPsec UPDATEs for the RIB task (hand-rolled: a mutex, a condition
//! variable and two queues). Its interface is [`Pool::new`], [`Pool::sign`] and
//! [`Pool::validate`]; what a job does is the job's own ([`SignJob::run`],
//! [`ValidateJob::run`]), so that another executor can take the pool's place here
//! alone. Answers go back to the RIB task as [`Event`]s.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use tokio::sync::mpsc::UnboundedSender;

use super::events::Event;
use super::rib::{SignJob, ValidateJob};
use crate::{RouterKeys, Validator};

/// The jobs waiting for a worker.
#[derive(Default)]
struct Queues {
    sign: VecDeque<SignJob>,
    validate: VecDeque<ValidateJob>,
    closed: bool,
}

type Shared = Arc<(Mutex<Queues>, Condvar)>;

fn lock(shared: &Shared) -> MutexGuard<'_, Queues> {
    // A worker that panicked leaves the queues consistent (it holds no lock while
    // working), so a poisoned lock is still usable.
    shared
        .0
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Most jobs a worker takes at once.
const MAX_BATCH: usize = 16;

/// The worker threads: each takes the next sign jobs, or if there are none the next
/// validation jobs — validated with every suite hopsig has ([`crate::SUITES`])
/// and the RPKI keys — and reports back. Signing goes first because a forwarded
/// route is what lazy mode is for; a validation waits at most for the sign jobs
/// queued before it is taken up.
///
/// A worker takes its share of the queue (split among the workers), at most
/// [`MAX_BATCH`] jobs, and sends their answers together: the RIB task, woken by the
/// first, finds the others waiting instead of sleeping and being woken for each —
/// under a burst that wake-up cost as much as a signature. A lone job is taken
/// alone, so it waits for no other.
pub struct Pool {
    shared: Shared,
}

impl Pool {
    /// Starts `threads` workers answering on `answers`.
    pub fn new(threads: usize, keys: Arc<RouterKeys>, answers: UnboundedSender<Event>) -> Pool {
        let shared: Shared = Arc::default();
        let threads = threads.max(1);
        for _ in 0..threads {
            let shared = Arc::clone(&shared);
            let keys = Arc::clone(&keys);
            let answers = answers.clone();
            std::thread::spawn(move || loop {
                let mut q = lock(&shared);
                while q.sign.is_empty() && q.validate.is_empty() && !q.closed {
                    q = shared
                        .1
                        .wait(q)
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                }
                if q.closed {
                    return;
                }
                let take = |n: usize| n.div_ceil(threads).min(MAX_BATCH);
                let answers_of: Vec<Event> = if !q.sign.is_empty() {
                    let n = take(q.sign.len());
                    let jobs: Vec<SignJob> = q.sign.drain(..n).collect();
                    drop(q);
                    jobs.into_iter()
                        .map(|job| Event::Signed(job.run()))
                        .collect()
                } else {
                    let n = take(q.validate.len());
                    let jobs: Vec<ValidateJob> = q.validate.drain(..n).collect();
                    drop(q);
                    let v = Validator::with_suites(crate::SUITES, &*keys);
                    jobs.into_iter()
                        .map(|job| Event::Validated(job.run(&v)))
                        .collect()
                };
                for event in answers_of {
                    if answers.send(event).is_err() {
                        return;
                    }
                }
            });
        }
        Pool { shared }
    }

    /// Queues a sign job: it goes ahead of every validation.
    pub(crate) fn sign(&self, job: SignJob) {
        self.push(|q| q.sign.push_back(job));
    }

    /// Queues validation jobs.
    pub(crate) fn validate(&self, jobs: Vec<ValidateJob>) {
        self.push(|q| q.validate.extend(jobs));
    }

    fn push(&self, add: impl FnOnce(&mut Queues)) {
        add(&mut lock(&self.shared));
        self.shared.1.notify_one();
    }
}

impl Drop for Pool {
    /// Stops the workers once each finishes its job in hand.
    fn drop(&mut self) {
        lock(&self.shared).closed = true;
        self.shared.1.notify_all();
    }
}
