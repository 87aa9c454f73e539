#!/usr/bin/env python3
"""Independent scapy-based checker for PLA headers carried in IPv6 packets.

Written from docs/spec/pla.md alone (sections "PLA header" and "PLA in IPv6
packets"), without reading the Rust implementation, so that it can catch
places where the implementation and the spec disagree.  Dependencies: the
Python 3.11+ standard library and scapy (tested with scapy 2.6.1).

What the spec says, in short:

* The PLA header is the Option Data of one IPv6 Hop-by-Hop option of type
  0x1E.  Its type octet sits at an offset = 2 (mod 4) from the start of the
  Hop-by-Hop header; padding is Pad1/PadN; the Hop-by-Hop header is a multiple
  of 8 octets.  A sender that finds no Hop-by-Hop header inserts one (the PLA
  option then sits at offset 2, with no padding before it); one that finds a
  Hop-by-Hop header keeps its options in order and appends the PLA option.
  Nothing after the Hop-by-Hop header changes, and the IPv6 Payload Length
  grows by the octets added.
* Packets with a Routing header, with Payload Length 0 (jumbograms) or that
  already carry a PLA option are left as they are.
* PLA header: version(1)=1, curve(1) 1/2/3 = K-163/K-233/K-283, layout(1),
  TTP id(2), sequence number(4), timestamp(4); then layout 1: public key
  (1+F, SEC 1 compressed) and TTP signature (2L); layout 2: r_A (F) and b_A
  (1 octet, 0 or 1); then the packet signature (2L).  F = ceil(m/8),
  L = bytes(n) = 21/29/36.

Subcommands:

  make OUT.pcap [--seed N]
      write a deterministic pcap (Ethernet) of mixed test traffic.
  check ORIG.pcap SIGNED.pcap [--expect-signed N]
      compare an original capture with a signed one, frame by frame.
  dump FILE.pcap
      one line per frame, with the decoded PLA fixed fields where present.

Frames are numbered from 1, as Wireshark does.
"""

from __future__ import annotations

import argparse
import random
import signal
import struct
import sys
from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Iterable, Sequence

from scapy.layers.inet import ICMP, IP, TCP, UDP
from scapy.layers.inet6 import (
    HBHOptUnknown,
    ICMPv6EchoReply,
    ICMPv6EchoRequest,
    ICMPv6MLDMultAddrRec,
    ICMPv6MLReport2,
    ICMPv6ND_NA,
    ICMPv6ND_NS,
    ICMPv6NDOptDstLLAddr,
    ICMPv6NDOptSrcLLAddr,
    IPv6,
    IPv6ExtHdrDestOpt,
    IPv6ExtHdrFragment,
    IPv6ExtHdrHopByHop,
    IPv6ExtHdrSegmentRouting,
    RouterAlert,
    _ICMPv6,
    fragment6,
)
from scapy.layers.l2 import ARP, Ether
from scapy.packet import Packet, Raw
from scapy.utils import rdpcap, wrpcap

# --------------------------------------------------------------------------
# Constants from docs/spec/pla.md
# --------------------------------------------------------------------------

PLA_OPTION_TYPE = 0x1E  # RFC 4727 experimental HBH option, act=00, chg=0
PAD1, PADN = 0x00, 0x01
PLA_FIXED_LEN = 13  # version 1 + curve 1 + layout 1 + TTP id 2 + seq 4 + ts 4

NH_HOPOPTS, NH_ROUTING, NH_FRAGMENT, NH_AH, NH_DSTOPTS = 0, 43, 44, 51, 60
# Extension headers using the generic (Hdr Ext Len + 1) * 8 length encoding.
GENERIC_EXT_HEADERS = {NH_ROUTING, NH_DSTOPTS, 135, 139, 140}

# curve id -> (name, m, L = bytes(n))
CURVES = {1: ("K-163", 163, 21), 2: ("K-233", 233, 29), 3: ("K-283", 283, 36)}
LAYOUTS = {1: "certificate", 2: "implicit"}


def pla_header_len(curve: int, layout: int) -> int:
    """Size of a PLA header for a curve and layout (section "PLA header")."""
    _, m, l_n = CURVES[curve]
    f = (m + 7) // 8
    if layout == 1:  # public key (1 + F) + TTP signature (2L)
        material = 1 + f + 2 * l_n
    else:  # r_A (F) + b_A (1)
        material = f + 1
    return PLA_FIXED_LEN + material + 2 * l_n  # + packet signature (2L)


# Every valid Opt Data Len; the spec gives 119 / 77 for K-163 and the range
# 77..194 overall, which this table reproduces.
VALID_PLA_LENGTHS = {
    pla_header_len(c, lay): (c, lay) for c in CURVES for lay in LAYOUTS
}
assert pla_header_len(1, 1) == 119 and pla_header_len(1, 2) == 77
assert min(VALID_PLA_LENGTHS) == 77 and max(VALID_PLA_LENGTHS) == 194


# --------------------------------------------------------------------------
# Byte-level parsing of the IPv6 header and its extension header chain
# --------------------------------------------------------------------------


class Malformed(Exception):
    """The IPv6 packet or its Hop-by-Hop header does not parse."""


@dataclass
class Option:
    """One Hop-by-Hop option: offset of its type octet in the HBH header."""

    offset: int
    otype: int
    data: bytes  # Option Data (empty for Pad1)

    @property
    def size(self) -> int:
        return 1 if self.otype == PAD1 else 2 + len(self.data)

    @property
    def is_padding(self) -> bool:
        return self.otype in (PAD1, PADN)


@dataclass
class PlaHeader:
    """The fixed fields of a PLA header, plus its total length."""

    version: int
    curve: int
    layout: int
    ttp_id: int
    seq: int
    timestamp: int
    length: int

    def describe(self) -> str:
        curve = CURVES.get(self.curve, (f"curve?{self.curve}",))[0]
        layout = LAYOUTS.get(self.layout, f"layout?{self.layout}")
        return (
            f"PLA v={self.version} curve={self.curve}({curve}) "
            f"layout={self.layout}({layout}) ttp={self.ttp_id} seq={self.seq} "
            f"ts={self.timestamp} len={self.length}"
        )


@dataclass
class Ipv6View:
    """An IPv6 packet split at the octets the PLA rules talk about.

    `pkt` holds the IPv6 header and the Payload Length octets after it, and
    nothing beyond (such as an Ethernet trailer).
    """

    pkt: bytes
    plen: int
    hbh: bytes | None  # the whole Hop-by-Hop header, if first
    options: list[Option] = field(default_factory=list)
    next_proto: int = 0  # IPv6 nh if no HBH header, else the HBH's nh
    chain: list[int] = field(default_factory=list)  # nh values after HBH
    fragmented: bool = False

    @property
    def rest(self) -> bytes:
        """Every octet after the IPv6 header and the Hop-by-Hop header."""
        start = 40 + (len(self.hbh) if self.hbh is not None else 0)
        return self.pkt[start:]

    def pla_options(self) -> list[Option]:
        return [o for o in self.options if o.otype == PLA_OPTION_TYPE]


def parse_hbh_options(hbh: bytes) -> list[Option]:
    """Walk the options of a Hop-by-Hop header; raise Malformed on overrun."""
    options: list[Option] = []
    i = 2
    while i < len(hbh):
        otype = hbh[i]
        if otype == PAD1:
            options.append(Option(i, PAD1, b""))
            i += 1
            continue
        if i + 2 > len(hbh):
            raise Malformed(f"HBH option at offset {i}: length octet past the end")
        olen = hbh[i + 1]
        if i + 2 + olen > len(hbh):
            raise Malformed(
                f"HBH option type {otype:#04x} at offset {i}: {olen} data octets "
                f"run past the end of the {len(hbh)}-octet header"
            )
        options.append(Option(i, otype, hbh[i + 2 : i + 2 + olen]))
        i += 2 + olen
    return options


def parse_ipv6(ip6: bytes, strict_length: bool) -> Ipv6View:
    """Parse IPv6 octets (from the version nibble to the end of the frame).

    With strict_length the Payload Length must equal the octets present;
    otherwise octets beyond it (an Ethernet trailer) are tolerated.
    """
    if len(ip6) < 40:
        raise Malformed(f"IPv6 header truncated ({len(ip6)} octets)")
    if ip6[0] >> 4 != 6:
        raise Malformed(f"IP version {ip6[0] >> 4}, not 6")
    plen = struct.unpack_from("!H", ip6, 4)[0]
    present = len(ip6) - 40
    if plen > present:
        raise Malformed(f"Payload Length {plen} > {present} octets present")
    if strict_length and plen != present:
        raise Malformed(f"Payload Length {plen} != {present} octets after the IPv6 header")
    view = Ipv6View(pkt=ip6[: 40 + plen], plen=plen, hbh=None)
    nh = ip6[6]
    pos = 40
    if nh == NH_HOPOPTS:
        if plen < 8:
            raise Malformed("Hop-by-Hop header truncated")
        hlen = (view.pkt[41] + 1) * 8
        if 40 + hlen > len(view.pkt):
            raise Malformed(f"Hop-by-Hop header ({hlen} octets) runs past Payload Length")
        view.hbh = view.pkt[40 : 40 + hlen]
        view.options = parse_hbh_options(view.hbh)
        nh = view.hbh[0]
        pos += hlen
    view.next_proto = nh
    # Walk the remaining extension headers, only to see which ones are there.
    while nh == NH_HOPOPTS or nh in GENERIC_EXT_HEADERS or nh in (NH_AH, NH_FRAGMENT):
        if nh == NH_HOPOPTS:
            raise Malformed("Hop-by-Hop header not directly after the IPv6 header")
        view.chain.append(nh)
        if pos + 2 > len(view.pkt):
            raise Malformed(f"extension header {nh} truncated")
        size = ext_header_size(nh, view.pkt[pos + 1])
        if pos + size > len(view.pkt):
            raise Malformed(f"extension header {nh} runs past Payload Length")
        if nh == NH_FRAGMENT:
            view.fragmented = True
            if struct.unpack_from("!H", view.pkt, pos + 2)[0] >> 3:
                break  # a non-first fragment: what follows is fragment data
        nh = view.pkt[pos]
        pos += size
    return view


def ext_header_size(nh: int, len_octet: int) -> int:
    """Length in octets of an extension header from its second octet."""
    if nh == NH_FRAGMENT:
        return 8
    if nh == NH_AH:
        return (len_octet + 2) * 4
    return (len_octet + 1) * 8


def decode_pla(data: bytes) -> tuple[PlaHeader | None, list[str]]:
    """Decode the fixed fields of a PLA header and check its format."""
    problems: list[str] = []
    if len(data) < PLA_FIXED_LEN:
        return None, [f"PLA header of {len(data)} octets is shorter than its 13 fixed octets"]
    version, curve, layout, ttp, seq, ts = struct.unpack_from("!BBBHII", data)
    hdr = PlaHeader(version, curve, layout, ttp, seq, ts, len(data))
    if version != 1:
        problems.append(f"PLA version {version} != 1")
    if curve not in CURVES:
        problems.append(f"PLA curve {curve} not in {{1,2,3}}")
    if layout not in LAYOUTS:
        problems.append(f"PLA layout {layout} not in {{1,2}}")
    if curve in CURVES and layout in LAYOUTS:
        want = pla_header_len(curve, layout)
        if len(data) != want:
            problems.append(
                f"PLA option length {len(data)} != {want} for curve {curve} layout {layout}"
            )
        else:
            f = (CURVES[curve][1] + 7) // 8
            if layout == 1 and data[PLA_FIXED_LEN] not in (2, 3):
                problems.append(
                    f"PLA public key prefix {data[PLA_FIXED_LEN]:#04x} is not SEC 1 compressed"
                )
            if layout == 2 and data[PLA_FIXED_LEN + f] not in (0, 1):
                problems.append(f"PLA b_A octet {data[PLA_FIXED_LEN + f]} not 0 or 1")
    return hdr, problems


# --------------------------------------------------------------------------
# Frames: locating the IPv6 header with scapy
# --------------------------------------------------------------------------


@dataclass
class Frame:
    """One captured frame: scapy's dissection plus its exact octets."""

    index: int  # 1-based
    pkt: Packet
    data: bytes
    time: Decimal
    truncated: bool
    ip6_offset: int | None  # where the IPv6 header starts, if an IPv6 frame


def network_layer(pkt: Packet) -> Packet | None:
    """The first IPv4/IPv6/ARP layer of a frame (its network layer)."""
    layer: Packet | None = pkt
    while layer is not None and not isinstance(layer, Raw):
        if isinstance(layer, (IP, IPv6, ARP)):
            return layer
        layer = layer.payload if layer.payload else None
    return None


def load_frames(path: str) -> list[Frame]:
    """Read a capture with scapy (any link type scapy knows)."""
    frames = []
    for i, pkt in enumerate(rdpcap(path), start=1):
        data = bytes(pkt.original) if getattr(pkt, "original", None) else bytes(pkt)
        wirelen = getattr(pkt, "wirelen", None)
        truncated = wirelen is not None and wirelen > len(data)
        offset = None
        net = network_layer(pkt)
        if isinstance(net, IPv6):
            tail = bytes(net)  # scapy keeps the dissected octets verbatim
            offset = len(data) - len(tail)
            if offset < 0 or data[offset:] != tail:
                offset = None  # scapy could not reproduce the octets; treat as opaque
        frames.append(Frame(i, pkt, data, Decimal(str(pkt.time)), truncated, offset))
    return frames


# --------------------------------------------------------------------------
# Upper-layer checksums, verified by letting scapy recompute them
# --------------------------------------------------------------------------


def upper_layer(pkt: Packet) -> Packet | None:
    """The TCP, UDP or ICMPv6 layer directly carried by the outer IPv6."""
    layer = pkt.getlayer(IPv6)
    while layer is not None and layer.payload:
        layer = layer.payload
        if isinstance(layer, (TCP, UDP, _ICMPv6)):
            return layer
        if isinstance(layer, IPv6) or isinstance(layer, Raw):
            return None
    return None


def checksum_ok(pkt: Packet) -> tuple[bool, str] | None:
    """Rebuild the frame with the upper-layer checksum deleted and compare.

    Returns None when there is no TCP/UDP/ICMPv6 layer to check.
    """
    layer = upper_layer(pkt)
    if layer is None:
        return None
    fname = "cksum" if isinstance(layer, _ICMPv6) else "chksum"
    depth = 0  # position of the layer, to find it again in the copy
    probe = pkt
    while probe is not layer:
        probe = probe.payload
        depth += 1
    copy = pkt.copy()
    target = copy
    for _ in range(depth):
        target = target.payload
    got = target.getfieldval(fname)
    target.delfieldval(fname)  # scapy recomputes it on build
    rebuilt = copy.__class__(bytes(copy))
    want = rebuilt
    for _ in range(depth):
        want = want.payload
    want_value = want.getfieldval(fname)
    return got == want_value, f"{layer.name} checksum {got:#06x}, scapy computes {want_value:#06x}"


# --------------------------------------------------------------------------
# check
# --------------------------------------------------------------------------


def padding_problems(options: Sequence[Option]) -> list[str]:
    """Pad1/PadN must carry zeros and no run of padding may exceed 7 octets."""
    problems = []
    run = 0  # octets of padding since the last real option
    for opt in options:
        if not opt.is_padding:
            run = 0
            continue
        if opt.otype == PADN and any(opt.data):
            problems.append(f"PadN at HBH offset {opt.offset} has non-zero data")
        before, run = run, run + opt.size
        if before <= 7 < run:  # report once per run
            problems.append(f"padding run reaching HBH offset {opt.offset} exceeds 7 octets")
    return problems


def check_signed(
    orig: Ipv6View, ofr: Frame, sfr: Frame
) -> tuple[list[str], PlaHeader | None]:
    """All rules for an IPv6 frame of SIGNED (sfr) that carries a PLA option.

    `orig` is the parsed original IPv6 packet of frame `ofr`.  Returns the
    problems found and the decoded PLA header (None if it could not be found).
    """
    signed_ip6 = sfr.data[sfr.ip6_offset :]
    problems: list[str] = []
    try:
        sig = parse_ipv6(signed_ip6, strict_length=True)
    except Malformed as exc:
        return [f"signed packet malformed: {exc}"], None

    # The IPv6 header: only Next Header and Payload Length may change.
    if signed_ip6[0:4] != orig.pkt[0:4]:
        problems.append("version/traffic class/flow label changed")
    if signed_ip6[7] != orig.pkt[7]:
        problems.append(f"hop limit changed {orig.pkt[7]} -> {signed_ip6[7]}")
    if signed_ip6[8:40] != orig.pkt[8:40]:
        problems.append("source or destination address changed")
    if signed_ip6[6] != NH_HOPOPTS or sig.hbh is None:
        problems.append(f"IPv6 Next Header is {signed_ip6[6]}, not 0 (Hop-by-Hop)")
        return problems, None

    # Scapy must see IPv6 / Hop-by-Hop with exactly one 0x1E option.
    hbh_layer = sfr.pkt.getlayer(IPv6).payload
    if not isinstance(hbh_layer, IPv6ExtHdrHopByHop):
        problems.append(f"scapy does not see a Hop-by-Hop header after IPv6 ({hbh_layer.name})")
    else:
        n_pla = sum(1 for o in hbh_layer.options if o.otype == PLA_OPTION_TYPE)
        if n_pla != 1:
            problems.append(f"scapy finds {n_pla} options of type 0x1E in the Hop-by-Hop header")
        if bytes(hbh_layer)[: len(sig.hbh)] != sig.hbh:
            problems.append("scapy's Hop-by-Hop header octets differ from the frame's")

    # Hop-by-Hop layout (our own walk of its octets).
    if len(sig.hbh) % 8:
        problems.append(f"Hop-by-Hop header length {len(sig.hbh)} not a multiple of 8")
    plas = sig.pla_options()
    if len(plas) != 1:
        problems.append(f"{len(plas)} PLA options in the Hop-by-Hop header (want exactly 1)")
        return problems, None
    pla = plas[0]
    if pla.offset % 4 != 2:
        problems.append(f"PLA option at HBH offset {pla.offset}, not = 2 (mod 4)")
    if len(pla.data) not in VALID_PLA_LENGTHS:
        problems.append(
            f"PLA Opt Data Len {len(pla.data)} not one of {sorted(VALID_PLA_LENGTHS)}"
        )
    before = [o for o in sig.options if o.offset < pla.offset]
    after = [o for o in sig.options if o.offset > pla.offset]
    if any(not o.is_padding for o in after):
        problems.append("options other than padding follow the PLA option")
    problems += padding_problems(sig.options)
    kept = [(o.otype, o.data) for o in before if not o.is_padding]
    if orig.hbh is None:
        if pla.offset != 2:
            problems.append(f"new Hop-by-Hop header: PLA option at offset {pla.offset}, not 2")
    else:
        want = [(o.otype, o.data) for o in orig.options if not o.is_padding]
        if kept != want:
            problems.append(
                f"options before PLA {[hex(t) for t, _ in kept]} != original "
                f"{[hex(t) for t, _ in want]} (or their data changed)"
            )

    # Everything after the Hop-by-Hop header is the original's, unchanged.
    if sig.next_proto != orig.next_proto:
        problems.append(
            f"HBH Next Header {sig.next_proto} != original next protocol {orig.next_proto}"
        )
    if sig.rest != orig.rest:
        problems.append(
            f"octets after the Hop-by-Hop header differ from the original's "
            f"({len(sig.rest)} vs {len(orig.rest)} octets)"
        )
    want_plen = orig.plen - (len(orig.hbh) if orig.hbh else 0) + len(sig.hbh)
    if sig.plen != want_plen:
        problems.append(f"Payload Length {sig.plen}, expected {want_plen}")

    # Packets the spec says a sender leaves alone.
    if NH_ROUTING in sig.chain:
        problems.append("packet with a Routing header was signed")
    if orig.plen == 0:
        problems.append("packet with Payload Length 0 was signed")

    # The PLA header itself.
    hdr, hdr_problems = decode_pla(pla.data)
    problems += hdr_problems

    # Upper-layer checksum still verifies (unfragmented packets only).
    if not sig.fragmented:
        res = checksum_ok(sfr.pkt)
        if res is not None and not res[0]:
            orig_res = checksum_ok(ofr.pkt)
            if orig_res is not None and not orig_res[0]:
                problems.append(f"{res[1]} (the original's was already wrong)")
            else:
                problems.append(res[1])
    return problems, hdr


def has_pla_option(frame: Frame) -> bool:
    """Does this IPv6 frame carry a 0x1E option in a leading Hop-by-Hop header?"""
    ip6 = frame.data[frame.ip6_offset :]
    if len(ip6) < 42 or ip6[6] != NH_HOPOPTS:
        return False
    hlen = (ip6[41] + 1) * 8
    hbh = ip6[40 : 40 + hlen]
    i = 2
    while i < len(hbh):  # lenient walk: stop at the first overrun
        if hbh[i] == PAD1:
            i += 1
            continue
        if hbh[i] == PLA_OPTION_TYPE:
            return True
        if i + 1 >= len(hbh):
            break
        i += 2 + hbh[i + 1]
    return False


def cmd_check(args: argparse.Namespace) -> int:
    """Compare ORIG and SIGNED frame by frame; exit status 1 on any problem."""
    origs, signeds = load_frames(args.orig), load_frames(args.signed)
    problems: list[str] = []
    counts = Counter()
    first_signed: Frame | None = None
    seen_seq: dict[tuple[int, bytes, int], int] = {}
    time_changed = 0  # frames whose capture time differs from the original's
    ts_far = 0  # signed frames whose PLA timestamp is > 2 s from capture time

    def report(index: int, msg: str) -> None:
        problems.append(f"frame {index}: {msg}")

    if len(origs) != len(signeds):
        problems.append(f"frame count differs: {len(origs)} original vs {len(signeds)} signed")
    if origs and signeds and type(origs[0].pkt) is not type(signeds[0].pkt):
        problems.append(
            f"link layer differs: {origs[0].pkt.name} vs {signeds[0].pkt.name}"
        )

    for ofr, sfr in zip(origs, signeds):
        i = sfr.index
        if ofr.time != sfr.time:
            time_changed += 1
        if sfr.truncated:
            report(i, "signed frame truncated by the capture's snap length")
        if ofr.ip6_offset is None or sfr.ip6_offset is None:
            # Not IPv6 (on one side at least): must be untouched.
            counts["non-ipv6"] += 1
            if ofr.data != sfr.data:
                report(i, f"non-IPv6 (or undissectable) frame changed "
                      f"({ofr.pkt.summary()} -> {sfr.pkt.summary()})")
            continue
        if not has_pla_option(sfr) or has_pla_option(ofr):
            # Skipped by the signer (or already signed): must be untouched.
            counts["unsigned-unchanged"] += 1
            if ofr.data != sfr.data:
                if has_pla_option(ofr):
                    report(i, "IPv6 frame already carried a PLA option but was changed")
                else:
                    report(i, "IPv6 frame has no PLA option but differs from the original")
            continue

        counts["signed"] += 1
        if first_signed is None:
            first_signed = sfr
        if ofr.data[: ofr.ip6_offset] != sfr.data[: sfr.ip6_offset]:
            report(i, "link-layer header changed")
        try:
            orig = parse_ipv6(ofr.data[ofr.ip6_offset :], strict_length=False)
        except Malformed as exc:
            report(i, f"original packet malformed ({exc}) yet signed")
            continue
        frame_problems, hdr = check_signed(orig, ofr, sfr)
        for msg in frame_problems:
            report(i, msg)
        if hdr is not None:
            if abs(hdr.timestamp - int(sfr.time)) > 2:
                ts_far += 1
            key = (hdr.ttp_id, orig.pkt[8:24], hdr.seq)
            if key in seen_seq:
                report(i, f"sequence number {hdr.seq} reused (first in frame {seen_seq[key]})")
            seen_seq.setdefault(key, i)

    if args.expect_signed is not None and counts["signed"] != args.expect_signed:
        problems.append(f"{counts['signed']} signed frames, expected {args.expect_signed}")

    if first_signed is not None:
        print(f"first signed frame {first_signed.index}: {first_signed.pkt.summary()}")
    # Notes: not errors by the spec, but worth knowing when verifying later.
    if time_changed:
        print(f"note: {time_changed} frame(s) have a capture time different from the original's")
    if ts_far:
        print(f"note: {ts_far} signed frame(s) carry a PLA timestamp more than 2 s from "
              f"their capture time (verify-pcap's clock is the capture time by default)")
    print(
        f"signed={counts['signed']} unsigned-unchanged={counts['unsigned-unchanged']} "
        f"non-ipv6={counts['non-ipv6']} frames={len(signeds)}"
    )
    for msg in problems:
        print(f"PROBLEM {msg}")
    if problems:
        print(f"FAIL: {len(problems)} problem(s)")
        return 1
    print("OK")
    return 0


# --------------------------------------------------------------------------
# dump
# --------------------------------------------------------------------------


def cmd_dump(args: argparse.Namespace) -> int:
    """One line per frame; PLA frames also get their decoded fixed fields."""
    for fr in load_frames(args.file):
        line = f"{fr.index:4d} {fr.time:.6f} {fr.pkt.summary()}"
        if fr.ip6_offset is not None and has_pla_option(fr):
            try:
                view = parse_ipv6(fr.data[fr.ip6_offset :], strict_length=False)
                for opt in view.pla_options():
                    hdr, probs = decode_pla(opt.data)
                    line += f" | off={opt.offset} " + (hdr.describe() if hdr else "")
                    if probs:
                        line += " [" + "; ".join(probs) + "]"
            except Malformed as exc:
                line += f" | PLA? malformed: {exc}"
        print(line)
    return 0


# --------------------------------------------------------------------------
# make
# --------------------------------------------------------------------------

EPOCH = Decimal("1700000000")
STEP = Decimal("0.010")

MAC = {n: f"02:00:00:00:00:{n:02x}" for n in range(1, 8)}
ROUTER_MAC = "02:00:00:00:00:fe"
A = "2001:db8:1::10"
B = "2001:db8:2::20"
C = "2001:db8::1"
D = "fe80::ff:fe00:4"  # link-local, EUI-64 of 02:00:00:00:00:04
E = "2001:db8:abcd:12::5"
LL_ROUTER = "fe80::1"
S_WEB = "2001:db8:ffff::80"
S_UDP = "2001:db8:ffff::53"
S_PING = "2001:db8:ffff::7"
SEG1 = "2001:db8:ffff::100"


def tcp_flow(rng: random.Random, mac: str, src: str, dst: str, sport: int, dport: int,
             script: Iterable[tuple[str, str, int]], **ip6kw) -> list[Packet]:
    """A TCP conversation; script items are (direction 'c'/'s', flags, payload len)."""
    seq = {"c": rng.getrandbits(32), "s": rng.getrandbits(32)}
    out = []
    for direction, flags, size in script:
        peer = "s" if direction == "c" else "c"
        payload = rng.randbytes(size)
        if direction == "c":
            l2 = Ether(src=mac, dst=ROUTER_MAC)
            l3 = IPv6(src=src, dst=dst, **ip6kw)
            l4 = TCP(sport=sport, dport=dport)
        else:
            l2 = Ether(src=ROUTER_MAC, dst=mac)
            l3 = IPv6(src=dst, dst=src, **ip6kw)
            l4 = TCP(sport=dport, dport=sport)
        l4.flags = flags
        l4.seq = seq[direction]
        l4.ack = seq[peer] if "A" in flags else 0
        l4.window = 64240
        if "S" in flags:
            l4.options = [("MSS", 1440), ("SAckOK", b""), ("Timestamp", (1000, 0)),
                          ("NOP", None), ("WScale", 7)]
        consumed = size + (1 if ("S" in flags or "F" in flags) else 0)  # SYN/FIN count 1
        seq[direction] = (seq[direction] + consumed) % 2**32
        out.append(l2 / l3 / l4 / Raw(payload) if size else l2 / l3 / l4)
    return out


def build_traffic(seed: int) -> list[Packet]:
    """All test frames, in file order, with scapy-computed lengths/checksums."""
    rng = random.Random(seed)
    # Each stream keeps its own order; the streams are interleaved at the end.
    streams: dict[str, list[Packet]] = {}

    # TCP: handshake with options, data both ways (incl. 1200 octets), FIN close.
    streams["tcp1"] = tcp_flow(rng, MAC[1], A, S_WEB, 40001, 80, [
        ("c", "S", 0), ("s", "SA", 0), ("c", "A", 0), ("c", "PA", 120), ("s", "A", 0),
        ("s", "PA", 1200), ("c", "A", 0), ("c", "FA", 0), ("s", "FA", 0), ("c", "A", 0),
    ])
    # TCP with a non-zero traffic class and flow label, ending in RST.
    streams["tcp2"] = tcp_flow(rng, MAC[2], B, S_WEB, 50123, 443, [
        ("c", "S", 0), ("s", "SA", 0), ("c", "A", 0), ("c", "PA", 517), ("s", "PA", 1000),
        ("c", "FA", 0), ("s", "R", 0),
    ], tc=0x28, fl=0x12345)
    # A short TCP flow from a third source.
    streams["tcp3"] = tcp_flow(rng, MAC[5], E, S_WEB, 33000, 22, [
        ("c", "S", 0), ("s", "SA", 0), ("c", "A", 0), ("c", "PA", 48),
    ])

    # UDP of several sizes, including 0 and 1200 octets of payload.
    udp = streams["udp"] = []
    for mac, src, dst, size in [(MAC[5], E, S_UDP, 0), (MAC[1], A, S_UDP, 1),
                                (MAC[3], C, S_UDP, 64), (MAC[2], B, S_UDP, 512),
                                (MAC[3], C, S_UDP, 1200)]:
        udp.append(Ether(src=mac, dst=ROUTER_MAC) / IPv6(src=src, dst=dst)
                   / UDP(sport=41000 + size, dport=7777) / Raw(rng.randbytes(size)))
    udp.append(Ether(src=MAC[4], dst=MAC[6]) / IPv6(src=D, dst=LL_ROUTER)
               / UDP(sport=41999, dport=7777) / Raw(rng.randbytes(100)))

    # ICMPv6 echo request / reply, global and link-local.
    icmp = streams["icmp"] = []
    for mac, src, dst, ident, size in [(MAC[1], A, S_PING, 0x1234, 56),
                                       (MAC[4], D, LL_ROUTER, 0x0042, 16),
                                       (MAC[3], C, S_PING, 0x0777, 0)]:
        data = rng.randbytes(size)
        icmp.append(Ether(src=mac, dst=ROUTER_MAC) / IPv6(src=src, dst=dst)
                    / ICMPv6EchoRequest(id=ident, seq=1, data=data))
        icmp.append(Ether(src=ROUTER_MAC, dst=mac) / IPv6(src=dst, dst=src)
                    / ICMPv6EchoReply(id=ident, seq=1, data=data))

    # Fragmented packets: a 3000-octet UDP datagram and a 2600-octet echo
    # request, each cut into 3 fragments of at most 1280 octets.
    big_udp = (IPv6(src=C, dst=S_UDP) / IPv6ExtHdrFragment(id=0x0A0B0C0D)
               / UDP(sport=42000, dport=7777) / Raw(rng.randbytes(3000)))
    big_ping = (IPv6(src=B, dst=S_PING) / IPv6ExtHdrFragment(id=0x11223344)
                / ICMPv6EchoRequest(id=0x0BEE, seq=7, data=rng.randbytes(2600)))
    for name, big, mac in [("frag-udp", big_udp, MAC[3]), ("frag-icmp", big_ping, MAC[2])]:
        frags = fragment6(big, 1280)
        assert len(frags) >= 3
        streams[name] = [Ether(src=mac, dst=ROUTER_MAC) / f for f in frags]

    ext = streams["ext"] = []
    # MLDv2 report: already has a Hop-by-Hop header with Router Alert.
    ext.append(Ether(src=MAC[4], dst="33:33:00:00:00:16")
               / IPv6(src=D, dst="ff02::16", hlim=1)
               / IPv6ExtHdrHopByHop(options=RouterAlert())
               / ICMPv6MLReport2(records=[ICMPv6MLDMultAddrRec(rtype=4, dst="ff02::1:ff00:4")]))
    # Destination Options header (experimental option 0x3E) before UDP.
    ext.append(Ether(src=MAC[5], dst=ROUTER_MAC) / IPv6(src=E, dst=S_UDP)
               / IPv6ExtHdrDestOpt(options=[HBHOptUnknown(otype=0x3E, optdata=b"\x01\x02\x03\x04")])
               / UDP(sport=44000, dport=7777) / Raw(rng.randbytes(100)))
    # Segment Routing header (Routing header, type 43): a signer must skip it.
    ext.append(Ether(src=MAC[1], dst=ROUTER_MAC) / IPv6(src=A, dst=SEG1)
               / IPv6ExtHdrSegmentRouting(addresses=[S_UDP, SEG1], segleft=1, lastentry=1)
               / UDP(sport=45000, dport=7777) / Raw(rng.randbytes(64)))
    # A Hop-by-Hop header with an unknown, skippable option (type 0x3E, data
    # 3 octets): its option must be kept in front of the PLA option.
    ext.append(Ether(src=MAC[1], dst=ROUTER_MAC) / IPv6(src=A, dst=S_UDP)
               / IPv6ExtHdrHopByHop(options=[HBHOptUnknown(otype=0x3E, optdata=b"\xAA\xBB\xCC")])
               / UDP(sport=43000, dport=7777) / Raw(rng.randbytes(40)))

    # Neighbor Discovery (hop limit 255) on the link.
    streams["nd"] = [
        Ether(src=MAC[4], dst="33:33:ff:00:00:01")
        / IPv6(src=D, dst="ff02::1:ff00:1", hlim=255)
        / ICMPv6ND_NS(tgt=LL_ROUTER) / ICMPv6NDOptSrcLLAddr(lladdr=MAC[4]),
        Ether(src=MAC[6], dst=MAC[4]) / IPv6(src=LL_ROUTER, dst=D, hlim=255)
        / ICMPv6ND_NA(tgt=LL_ROUTER, R=1, S=1, O=1) / ICMPv6NDOptDstLLAddr(lladdr=MAC[6]),
    ]

    # Not IPv6: two IPv4 packets and an ARP request.
    streams["not-ipv6"] = [
        Ether(src=MAC[7], dst="ff:ff:ff:ff:ff:ff")
        / ARP(op=1, hwsrc=MAC[7], psrc="198.51.100.10", pdst="198.51.100.1"),
        Ether(src=MAC[7], dst=ROUTER_MAC) / IP(src="198.51.100.10", dst="203.0.113.5")
        / UDP(sport=46000, dport=7777) / Raw(rng.randbytes(32)),
        Ether(src=MAC[7], dst=ROUTER_MAC) / IP(src="198.51.100.10", dst="203.0.113.5")
        / ICMP(type=8, id=1, seq=1) / Raw(rng.randbytes(24)),
    ]

    # Interleave round-robin: kinds mix, each flow keeps its order.
    queues = list(streams.values())
    merged = []
    while any(queues):
        for queue in queues:
            if queue:
                merged.append(queue.pop(0))
    frames = []
    for i, pkt in enumerate(merged):
        frame = Ether(bytes(pkt))  # freeze: lengths and checksums computed by scapy
        frame.time = EPOCH + i * STEP
        frames.append(frame)
    return frames


def kind_of(pkt: Packet) -> str:
    """A short label for the summary line of `make`."""
    if ARP in pkt:
        return "ARP"
    if IP in pkt and IPv6 not in pkt:
        return "IPv4"
    if IPv6ExtHdrFragment in pkt:
        return "IPv6 fragment"
    if IPv6ExtHdrSegmentRouting in pkt:
        return "IPv6 routing header"
    if IPv6ExtHdrDestOpt in pkt:
        return "IPv6 dest-opts/UDP"
    if IPv6ExtHdrHopByHop in pkt:
        return "IPv6 HBH/" + ("MLDv2" if ICMPv6MLReport2 in pkt else "UDP")
    for cls, name in [(TCP, "TCP"), (UDP, "UDP"), (ICMPv6EchoRequest, "ICMPv6 echo"),
                      (ICMPv6EchoReply, "ICMPv6 echo"), (ICMPv6ND_NS, "ICMPv6 ND"),
                      (ICMPv6ND_NA, "ICMPv6 ND")]:
        if cls in pkt:
            return "IPv6 " + name
    return "other"


def cmd_make(args: argparse.Namespace) -> int:
    """Write the deterministic test capture and summarise it."""
    frames = build_traffic(args.seed)
    wrpcap(args.out, frames, linktype=1)
    kinds = Counter(kind_of(f) for f in frames)
    ipv6 = sum(1 for f in frames if IPv6 in f and ARP not in f and IP not in f)
    eligible = ipv6 - kinds["IPv6 routing header"]
    srcs = sorted({f[IPv6].src for f in frames if IPv6 in f})
    print(
        f"wrote {args.out}: {len(frames)} frames, {ipv6} IPv6 ({eligible} signable per spec, "
        f"all but the Routing-header one), {len(srcs)} IPv6 sources; "
        + ", ".join(f"{k}={v}" for k, v in sorted(kinds.items()))
    )
    return 0


# --------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="cmd", required=True)

    p = sub.add_parser("make", help="write a deterministic test capture")
    p.add_argument("out", metavar="OUT.pcap")
    p.add_argument("--seed", type=int, default=1,
                   help="seed for payloads and TCP numbers (default 1)")
    p.set_defaults(func=cmd_make)

    p = sub.add_parser("check", help="compare an original capture with a signed one")
    p.add_argument("orig", metavar="ORIG.pcap")
    p.add_argument("signed", metavar="SIGNED.pcap")
    p.add_argument("--expect-signed", type=int, metavar="N", help="require exactly N signed frames")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("dump", help="one line per frame, with decoded PLA fields")
    p.add_argument("file", metavar="FILE.pcap")
    p.set_defaults(func=cmd_dump)

    args = parser.parse_args(argv)
    if hasattr(signal, "SIGPIPE"):  # quiet exit when piped into head(1)
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
