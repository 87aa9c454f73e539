//! Replay protection at each hop (003 §I: "sequence numbers and timestamps are added to
//! ensure timeliness and uniqueness"): per sender (TTP id, Source Address and, for a
//! TTP-signed key, the key), the highest accepted sequence number and a window of the
//! 128 below it, as IPsec's anti-replay
//! window (RFC 4303 §3.4.3), in a table of bounded size (`docs/spec/pla.md`, "Replay
//! state" and "Bounded memory").

use std::collections::HashMap;

/// Sequence numbers the window remembers below the highest.
pub const WINDOW: u32 = 128;

/// Who a sequence number belongs to: TTP id, Source Address, and the key's id
/// ([`key_id`]; all zero for an implicit certificate, which binds its key to the
/// address).
pub type Source = (u16, [u8; 16], KeyId);

/// The first 16 octets of SHA-256 of a TTP-signed key (SEC 1 compressed): a key that
/// is not bound to an address gets windows of its own, so one certified host cannot
/// move another's window by sending from its address.
pub type KeyId = [u8; 16];

/// The [`KeyId`] of a compressed public key.
pub fn key_id(key: &[u8]) -> KeyId {
    let mut id = [0u8; 16];
    id.copy_from_slice(&hopsig_primitives::hash::sha256(&[key])[..16]);
    id
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    /// Highest accepted sequence number.
    highest: u32,
    /// Bit i set: highest − i was accepted.
    seen: u128,
    /// Newest timestamp accepted.
    newest: u32,
    /// The table's floor when the entry was made: the sender may have had an entry
    /// that was dropped, so its packets must still be above it.
    floor: Option<u32>,
}

/// The replay state of a router.
#[derive(Debug)]
pub struct ReplayTable {
    entries: HashMap<Source, Entry>,
    max_sources: usize,
    max_age: u32,
    /// The newest timestamp of an entry dropped while still fresh: a source with no
    /// entry must send above it.
    floor: Option<u32>,
}

impl ReplayTable {
    /// An empty table of at most `max_sources` (at least 1) entries, for a router whose
    /// timestamps are stale after `max_age` seconds.
    pub fn new(max_sources: usize, max_age: u32) -> Self {
        ReplayTable {
            entries: HashMap::new(),
            max_sources: max_sources.max(1),
            max_age,
            floor: None,
        }
    }

    /// Whether `sequence` with `timestamp` is new for `source`: above the highest, or
    /// in the window and not yet seen; for a source without an entry, a timestamp above
    /// the floor of dropped entries.
    pub fn is_fresh(&self, source: &Source, sequence: u32, timestamp: u32) -> bool {
        match self.entries.get(source) {
            // Below the floor the entry was made under: maybe a packet accepted
            // before the sender's previous entry was dropped.
            Some(e) if e.floor.is_some_and(|f| timestamp <= f) => false,
            Some(e) if sequence > e.highest => true,
            Some(e) => {
                let behind = e.highest - sequence;
                behind < WINDOW && e.seen & (1u128 << behind) == 0
            }
            None => self.floor.is_none_or(|f| timestamp > f),
        }
    }

    /// Records an accepted packet (whose freshness [`ReplayTable::is_fresh`] has just
    /// confirmed) at router time `clock`.
    pub fn accept(&mut self, source: Source, sequence: u32, timestamp: u32, clock: u32) {
        if let Some(e) = self.entries.get_mut(&source) {
            if sequence > e.highest {
                let ahead = sequence - e.highest;
                e.seen = if ahead >= WINDOW { 0 } else { e.seen << ahead };
                e.highest = sequence;
                e.seen |= 1;
            } else {
                e.seen |= 1u128 << (e.highest - sequence);
            }
            e.newest = e.newest.max(timestamp);
            return;
        }
        if self.entries.len() >= self.max_sources {
            self.make_room(clock);
        }
        self.entries.insert(
            source,
            Entry {
                highest: sequence,
                seen: 1,
                newest: timestamp,
                floor: self.floor,
            },
        );
    }

    /// Entries held.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no entry is held.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The timestamp a source without an entry must exceed, if entries were dropped
    /// while fresh.
    pub fn floor(&self) -> Option<u32> {
        self.floor
    }

    /// Drops stale entries (their packets are stale, so no replay of them passes); if
    /// that frees less than a quarter of the table, drops the older half by newest
    /// timestamp and raises the floor to the newest timestamp dropped.
    fn make_room(&mut self, clock: u32) {
        let oldest_fresh = clock.saturating_sub(self.max_age);
        self.entries.retain(|_, e| e.newest >= oldest_fresh);
        if self.entries.len() * 4 <= self.max_sources * 3 {
            return;
        }
        let mut newest: Vec<u32> = self.entries.values().map(|e| e.newest).collect();
        let half = newest.len() / 2;
        let (_, &mut cut, _) = newest.select_nth_unstable(half);
        // Entries at or below the cut go: at least half, and every tie with it.
        self.entries.retain(|_, e| e.newest > cut);
        self.floor = Some(self.floor.map_or(cut, |f| f.max(cut)));
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::expect_used)]
    use super::*;

    const A: Source = (1, [0xa; 16], [0; 16]);

    #[test]
    fn window_accepts_each_number_once_and_forgets_below_it() {
        let mut t = ReplayTable::new(16, 60);
        for seq in [5, 3, 4, 200, 73] {
            assert!(t.is_fresh(&A, seq, 100), "{seq}");
            t.accept(A, seq, 100, 100);
            assert!(!t.is_fresh(&A, seq, 100), "{seq} again");
        }
        // 200 − 127 = 73 is the oldest number the window holds; 72 is below it.
        assert!(!t.is_fresh(&A, 72, 100));
        assert!(t.is_fresh(&A, 74, 100));
        assert!(t.is_fresh(&A, 201, 100));
    }

    #[test]
    fn a_full_table_drops_stale_entries_before_fresh_ones() {
        let mut t = ReplayTable::new(4, 60);
        for i in 0..4u8 {
            t.accept((1, [i; 16], [0; 16]), 1, 100, 100);
        }
        // At 161 all four are stale: dropped without raising the floor.
        t.accept((1, [9; 16], [0; 16]), 1, 161, 161);
        assert_eq!(t.len(), 1);
        assert_eq!(t.floor(), None);
    }

    #[test]
    fn dropping_fresh_entries_raises_the_floor_so_their_replays_still_fail() {
        let mut t = ReplayTable::new(4, 60);
        for i in 0..4u8 {
            t.accept((1, [i; 16], [0; 16]), 1, 100 + u32::from(i), 110);
        }
        t.accept((1, [9; 16], [0; 16]), 1, 110, 110);
        assert!(t.len() <= 3, "at least half dropped: {}", t.len());
        let floor = t.floor().expect("fresh entries were dropped");
        assert!(floor >= 101);
        // Source 0's packet (timestamp 100) replayed: no entry, below the floor.
        assert!(!t.is_fresh(&(1, [0; 16], [0; 16]), 1, 100));
        // A new source above the floor is fine.
        assert!(t.is_fresh(&(1, [7; 16], [0; 16]), 1, floor + 1));
    }

    #[test]
    fn a_dropped_sender_that_comes_back_cannot_be_replayed_below_the_floor() {
        // The reviewer's case: the victim's packets 1..5 at 100, its entry dropped
        // (floor 101), then packet 6 at 102 makes a new entry; packet 3 (at 100) must
        // stay a replay although 3 is in the new entry's window.
        let mut t = ReplayTable::new(4, 60);
        let victim = (1, [0xee; 16], [0; 16]);
        for seq in 1..=5 {
            t.accept(victim, seq, 100, 100);
        }
        for i in 0..4u8 {
            t.accept((1, [i; 16], [0; 16]), 1, 101, 101);
        }
        let floor = t.floor().expect("the victim's entry was dropped");
        assert!(floor >= 100);
        assert!(t.is_fresh(&victim, 6, floor + 1));
        t.accept(victim, 6, floor + 1, floor + 1);
        assert!(!t.is_fresh(&victim, 3, 100), "old packet replayed");
        assert!(t.is_fresh(&victim, 7, floor + 1));
    }
}
