//! Which caches' data the router uses (RFC 8210 §10: "the router SHOULD use the
//! data from the most preferred cache … available"; as RTRlib and FRR do with cache
//! groups): the caches of the lowest preference value among those that hold data,
//! their data united. When that whole group loses its data (failure, Expire), the next
//! group takes over; when it comes back, it takes over again.

/// The indices of the caches in use, given each cache's (preference, holds data).
pub fn chosen(caches: &[(u8, bool)]) -> Vec<usize> {
    let best = caches
        .iter()
        .filter(|(_, holds)| *holds)
        .map(|(pref, _)| *pref)
        .min();
    match best {
        None => Vec::new(),
        Some(best) => caches
            .iter()
            .enumerate()
            .filter(|(_, (pref, holds))| *holds && *pref == best)
            .map(|(i, _)| i)
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::chosen;

    #[test]
    fn the_most_preferred_group_with_data_is_used_and_united() {
        assert_eq!(chosen(&[]), Vec::<usize>::new());
        assert_eq!(chosen(&[(1, false), (2, false)]), Vec::<usize>::new());
        // Two caches at 1, one at 2: the group at 1.
        assert_eq!(chosen(&[(2, true), (1, true), (1, true)]), vec![1, 2]);
        // One of the group fails: the other still holds the group.
        assert_eq!(chosen(&[(2, true), (1, false), (1, true)]), vec![2]);
        // The whole group fails: fall back to 2.
        assert_eq!(chosen(&[(2, true), (1, false), (1, false)]), vec![0]);
    }
}
