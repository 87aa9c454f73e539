//! Waiting, bounded, for a `tokio::sync::watch` channel to carry a wanted value (the
//! RTR tests wait so for a cache view).

use std::fmt::Debug;
use std::time::Duration;

use tokio::sync::watch::Receiver;

/// The first value of `rx` (the current one included) for which `ok` holds, waiting at
/// most `timeout` for it.
///
/// # Panics
/// When `timeout` passes first or the sender is dropped: the message names `what` and
/// shows the last value.
pub async fn until<T: Clone + Debug>(
    rx: &mut Receiver<T>,
    timeout: Duration,
    what: &str,
    ok: impl Fn(&T) -> bool,
) -> T {
    let r = tokio::time::timeout(timeout, async {
        loop {
            let v = rx.borrow_and_update().clone();
            if ok(&v) {
                return Ok(v);
            }
            if rx.changed().await.is_err() {
                return Err("the sender is gone");
            }
        }
    })
    .await;
    #[allow(clippy::panic)]
    match r {
        Ok(Ok(v)) => v,
        Ok(Err(why)) => panic!("no value where {what}: {why}; last {:?}", rx.borrow()),
        Err(_) => panic!(
            "no value where {what} within {timeout:?}: last {:?}",
            rx.borrow()
        ),
    }
}
