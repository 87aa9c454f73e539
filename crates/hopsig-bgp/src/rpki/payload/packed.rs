//! Route origins packed for [`super::PayloadSet`]: the `rpki` crate's `RouteOrigin` is 64
//! bytes (its prefix holds a 16-byte-aligned `u128` for either family), so a table of
//! 500 k VRPs in a `HashSet<RouteOrigin>` took about 68 MB, and twice that while the table
//! doubled. An IPv4 origin packs into 10 bytes and an IPv6 one into 22, both of
//! alignment 1, in a set per family (docs/spec/rpki.md, "Limits": memory).
//!
//! Each family's set is split in [`SHARDS`] hash sets by address, so that growing
//! one doubles a sixteenth of the table at a time: a single set's doubling held the
//! old table and the new one together, half as much again as the set.
//!
//! Equality and hashing are `RouteOrigin`'s: the prefix, the *resolved* max length
//! (the prefix length where none is given, RFC 6811 §2) and the AS. Whether a max
//! length was given is kept as well, so that an origin comes back as it went in.

use std::collections::HashSet;
use std::hash::{Hash, Hasher};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use rpki::resources::addr::{MaxLenPrefix, Prefix};
use rpki::resources::Asn;
use rpki::rtr::payload::RouteOrigin;

/// `max_len` of an origin that gave none (a valid one is at most 128).
const NO_MAX_LEN: u8 = u8::MAX;

/// A route origin whose address has `N` octets (4: IPv4, 16: IPv6), as bytes.
#[derive(Debug, Clone, Copy)]
pub(super) struct Packed<const N: usize> {
    /// The prefix's address, network byte order.
    addr: [u8; N],
    /// The AS, network byte order.
    asn: [u8; 4],
    /// The prefix length.
    len: u8,
    /// The max length, or [`NO_MAX_LEN`].
    max_len: u8,
}

/// An IPv4 route origin: 10 bytes.
pub(super) type V4 = Packed<4>;
/// An IPv6 route origin: 22 bytes.
pub(super) type V6 = Packed<16>;

/// A route origin packed, by family.
#[derive(Debug, Clone, Copy)]
pub(super) enum Origin {
    V4(V4),
    V6(V6),
}

impl Origin {
    /// `o` packed.
    pub fn pack(o: &RouteOrigin) -> Origin {
        let len = o.prefix.prefix_len();
        let max_len = o.prefix.max_len().unwrap_or(NO_MAX_LEN);
        let asn = o.asn.into_u32().to_be_bytes();
        match o.prefix.addr() {
            IpAddr::V4(a) => Origin::V4(Packed {
                addr: a.octets(),
                asn,
                len,
                max_len,
            }),
            IpAddr::V6(a) => Origin::V6(Packed {
                addr: a.octets(),
                asn,
                len,
                max_len,
            }),
        }
    }
}

impl<const N: usize> Packed<N> {
    /// The max length, or the prefix length where none was given.
    fn resolved_max_len(&self) -> u8 {
        if self.max_len == NO_MAX_LEN {
            self.len
        } else {
            self.max_len
        }
    }

    /// The route origin. Always `Some`: a `Packed` is made only by [`Origin::pack`]
    /// from a valid origin, which the `rpki` crate's checks accept again.
    pub fn unpack(&self) -> Option<RouteOrigin> {
        let addr: IpAddr = match N {
            4 => Ipv4Addr::from(<[u8; 4]>::try_from(&self.addr[..]).ok()?).into(),
            _ => Ipv6Addr::from(<[u8; 16]>::try_from(&self.addr[..]).ok()?).into(),
        };
        let prefix = Prefix::new(addr, self.len).ok()?;
        let max_len = (self.max_len != NO_MAX_LEN).then_some(self.max_len);
        Some(RouteOrigin::new(
            MaxLenPrefix::new(prefix, max_len).ok()?,
            Asn::from_u32(u32::from_be_bytes(self.asn)),
        ))
    }
}

/// The number of hash sets a family's origins are split into.
const SHARDS: usize = 16;

/// A set of packed route origins of one family, in [`SHARDS`] hash sets chosen by
/// address. The choice needs no secret: each shard is a `HashSet` with its own random
/// keys, and addresses that all fall in one shard only make it one set again.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct OriginSet<const N: usize> {
    /// Boxed: 16 `HashSet`s inline would make a `PayloadSet` over a kilobyte to move.
    shards: Box<[HashSet<Packed<N>>; SHARDS]>,
    len: usize,
}

impl<const N: usize> OriginSet<N> {
    /// The shard of `o`: its address's bytes mixed (equal origins have equal
    /// addresses, so they meet in the same shard).
    fn shard(o: &Packed<N>) -> usize {
        let mut h = 0u64;
        for b in o.addr {
            h = (h.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x517c_c1b7_2722_0a95);
        }
        (h >> 60) as usize % SHARDS
    }

    /// Whether `o` is there.
    pub fn contains(&self, o: &Packed<N>) -> bool {
        self.shards[Self::shard(o)].contains(o)
    }

    /// Adds `o`; whether it was new (an equal origin already there is kept).
    pub fn insert(&mut self, o: Packed<N>) -> bool {
        let i = Self::shard(&o);
        let new = self.shards[i].insert(o);
        self.len += usize::from(new);
        new
    }

    /// Removes `o`; whether it was there.
    pub fn remove(&mut self, o: &Packed<N>) -> bool {
        let i = Self::shard(o);
        let was = self.shards[i].remove(o);
        self.len -= usize::from(was);
        was
    }

    /// The number of origins.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Every origin, shard by shard.
    pub fn iter(&self) -> impl Iterator<Item = &Packed<N>> {
        self.shards.iter().flatten()
    }
}

impl<const N: usize> PartialEq for Packed<N> {
    fn eq(&self, other: &Self) -> bool {
        self.addr == other.addr
            && self.len == other.len
            && self.resolved_max_len() == other.resolved_max_len()
            && self.asn == other.asn
    }
}

impl<const N: usize> Eq for Packed<N> {}

impl<const N: usize> Hash for Packed<N> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write(&self.addr);
        state.write(&self.asn);
        state.write(&[self.len, self.resolved_max_len()]);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::hash_map::DefaultHasher;

    fn hash<T: Hash>(t: &T) -> u64 {
        let mut h = DefaultHasher::new();
        t.hash(&mut h);
        h.finish()
    }

    /// A valid origin: host bits cleared, max length `len + extra` capped at the
    /// family's width, or none; any AS (0 included).
    fn origin(v4: bool, bits: u128, len: u8, extra: Option<u8>, asn: u32) -> RouteOrigin {
        let width = if v4 { 32 } else { 128 };
        let len = len % (width + 1);
        let mask = if len == 0 {
            0
        } else {
            u128::MAX << (128 - u32::from(len))
        };
        let addr: IpAddr = if v4 {
            Ipv4Addr::from(((bits & mask) >> 96) as u32).into()
        } else {
            Ipv6Addr::from(bits & mask).into()
        };
        let max_len = extra.map(|e| len.saturating_add(e).min(width));
        RouteOrigin::new(
            MaxLenPrefix::new(Prefix::new(addr, len).unwrap(), max_len).unwrap(),
            Asn::from_u32(asn),
        )
    }

    fn unpack(p: Origin) -> RouteOrigin {
        match p {
            Origin::V4(k) => k.unpack().unwrap(),
            Origin::V6(k) => k.unpack().unwrap(),
        }
    }

    #[test]
    fn packed_sizes() {
        assert_eq!(std::mem::size_of::<V4>(), 10);
        assert_eq!(std::mem::size_of::<V6>(), 22);
        assert_eq!(std::mem::align_of::<V6>(), 1);
    }

    #[test]
    fn as_0_and_edge_lengths_round_trip() {
        for (v4, len, extra) in [
            (true, 0, None),
            (true, 32, Some(0)),
            (true, 0, Some(32)),
            (false, 0, Some(128)),
            (false, 128, None),
        ] {
            let o = origin(v4, u128::MAX, len, extra, 0);
            let back = unpack(Origin::pack(&o));
            assert_eq!(back, o);
            assert_eq!(back.prefix.max_len(), o.prefix.max_len());
            assert_eq!(back.asn.into_u32(), 0);
        }
    }

    #[test]
    fn no_max_length_equals_the_prefix_length_as_route_origin_does() {
        let none = origin(true, 10 << 120, 8, None, 65_001);
        let same = origin(true, 10 << 120, 8, Some(0), 65_001);
        let longer = origin(true, 10 << 120, 8, Some(1), 65_001);
        assert_eq!(none, same);
        let (Origin::V4(a), Origin::V4(b), Origin::V4(c)) = (
            Origin::pack(&none),
            Origin::pack(&same),
            Origin::pack(&longer),
        ) else {
            panic!("IPv4 origins packed as IPv6");
        };
        assert_eq!(a, b);
        assert_eq!(hash(&a), hash(&b));
        assert_ne!(a, c);
        // Each keeps whether it gave a max length.
        assert_eq!(a.unpack().unwrap().prefix.max_len(), None);
        assert_eq!(b.unpack().unwrap().prefix.max_len(), Some(8));
    }

    #[test]
    fn a_table_spreads_over_the_shards_and_its_count_follows() {
        let mut set = OriginSet::<4>::default();
        for i in 0..10_000u128 {
            let Origin::V4(k) = Origin::pack(&origin(true, (11 << 120) + (i << 104), 24, None, 1))
            else {
                panic!("IPv4 origin packed as IPv6");
            };
            assert!(set.insert(k));
            assert!(!set.insert(k));
        }
        assert_eq!(set.len(), 10_000);
        assert_eq!(set.iter().count(), 10_000);
        // Each shard holds its share give or take a half (a 16th is 625).
        for shard in set.shards.iter() {
            assert!((312..=938).contains(&shard.len()), "{}", shard.len());
        }
        let first = *set.iter().next().unwrap();
        assert!(set.remove(&first));
        assert!(!set.remove(&first));
        assert!(!set.contains(&first));
        assert_eq!(set.len(), 9_999);
    }

    proptest! {
        #[test]
        fn origins_round_trip_with_their_equality(
            v4 in any::<bool>(), bits in any::<u128>(), len in any::<u8>(),
            extra in proptest::option::of(0u8..=128), asn in any::<u32>(),
            same_base in any::<bool>(),
            v4b in any::<bool>(), bitsb in any::<u128>(), lenb in any::<u8>(),
            extrab in proptest::option::of(0u8..=128), asnb in any::<u32>(),
        ) {
            let o = origin(v4, bits, len, extra, asn);
            let p = Origin::pack(&o);
            prop_assert_eq!(matches!(p, Origin::V4(_)), v4);
            let back = unpack(p);
            prop_assert_eq!(back, o);
            prop_assert_eq!(back.prefix.max_len(), o.prefix.max_len());
            prop_assert_eq!(back.prefix.prefix(), o.prefix.prefix());
            prop_assert_eq!(back.asn, o.asn);
            // Packed equality is RouteOrigin's (`same_base`: only the max length may
            // differ, given or not).
            let other = if same_base {
                origin(v4, bits, len, extrab, asn)
            } else {
                origin(v4b, bitsb, lenb, extrab, asnb)
            };
            let same = match (Origin::pack(&o), Origin::pack(&other)) {
                (Origin::V4(a), Origin::V4(b)) => a == b,
                (Origin::V6(a), Origin::V6(b)) => a == b,
                _ => false,
            };
            prop_assert_eq!(same, o == other);
        }
    }
}
