//! The speaker's worker pool: the threads that sign announcements and validate
//! received BGPsec UPDATEs for the RIB task, on hopsig's one executor
//! ([`hopsig_primitives::par::Pool`]). Its interface is [`Pool::new`], [`Pool::sign`]
//! and [`Pool::validate`]; what a job does is the job's own ([`SignJob::run`],
//! [`ValidateJob::run`]). Answers go back to the RIB task as [`Event`]s.

use std::ops::ControlFlow;
use std::sync::Arc;

use hopsig_primitives::par::{self, Full, Panicked, Priority};
use tokio::sync::mpsc::UnboundedSender;

use super::events::{AnnounceError, Event, Signed, Validated};
use super::rib::{SignJob, ValidateJob};
use crate::{RouterKeys, Validator};

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
/// ([`crate::SUITES`]) and the RPKI keys — and reports back. Signing goes first
/// because a forwarded route is what lazy mode is for; a validation waits at most for
/// the sign jobs queued before it is taken up.
pub struct Pool {
    workers: par::Pool<Job>,
    keys: Arc<RouterKeys>,
    answers: UnboundedSender<Event>,
}

impl Pool {
    /// Starts `threads` workers answering on `answers`.
    pub fn new(threads: usize, keys: Arc<RouterKeys>, answers: UnboundedSender<Event>) -> Pool {
        let (work_keys, complete_answers) = (Arc::clone(&keys), answers.clone());
        let workers = par::Pool::new(
            threads,
            CAPACITY,
            MAX_BATCH,
            move |job: &Job| answer(job, &work_keys),
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
            keys,
            answers,
        }
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
            let _ = self.answers.send(answer(&job, &self.keys));
        }
    }
}

/// The job's answer.
fn answer(job: &Job, keys: &RouterKeys) -> Event {
    match job {
        Job::Sign(j) => Event::Signed(j.run()),
        Job::Validate(j) => Event::Validated(j.run(&Validator::with_suites(crate::SUITES, keys))),
    }
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
            result: Err(p.0),
        }),
    }
}
