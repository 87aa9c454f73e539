"""hopsig.mrt: MRT files read as pybgpkit-parser reads them.

Cross-checks: pybgpkit-parser (PyPI) on every RIS file and the RouteViews file (same
elements in the same order); the raw records against an independent framing written
here with ``struct``; the decoded BGPsec_PATH against interop/python/bgpsec_reference.py
on the RFC 8608 Appendix A UPDATEs. Malformed input: seeded random truncations and
byte flips give InputError (reason "mrt") or a clean read, never anything else.
"""

import bz2
import gzip
import importlib.util
import json
import lzma
import random
import struct
import sys
import threading
from pathlib import Path
from typing import Any, Dict, List, Mapping, Tuple

import pytest

import hopsig
from hopsig import mrt
from hopsig.errors import InputError

from conftest import REPO, RIS_DIR, ROUTEVIEWS, need, require

#: The keys hopsig adds to pybgpkit-parser's ``Elem.to_dict()``.
EXTRA = ("bgpsec_path", "record")

#: Every file the suite has: the RIS files (a 2002 TABLE_DUMP bview, updates of 2007,
#: 2010, 2016) and RouteViews' (bzip2).
FILES = sorted(RIS_DIR.glob("ris-*.gz")) + [ROUTEVIEWS]


def plain(elem: Mapping[str, Any]) -> Dict[str, Any]:
    """An element without the keys pybgpkit-parser does not have."""
    return {k: v for k, v in elem.items() if k not in EXTRA}


def frames(data: bytes) -> List[Tuple[int, int, int, int, bytes]]:
    """The records of uncompressed MRT ``data`` framed independently (RFC 6396 §2):
    (timestamp, type, subtype, offset, body with the ``_ET`` microseconds)."""
    out, at = [], 0
    while at < len(data):
        timestamp, mrt_type, subtype, length = struct.unpack_from(">IHHI", data, at)
        out.append((timestamp, mrt_type, subtype, at, data[at + 12 : at + 12 + length]))
        at += 12 + length
    return out


@pytest.fixture(scope="module")
def ris_plain(tmp_path_factory: pytest.TempPathFactory, ris_updates: Path) -> Path:
    """The small RIS updates file, decompressed."""
    out = tmp_path_factory.mktemp("plain") / "updates.mrt"
    out.write_bytes(gzip.decompress(ris_updates.read_bytes()))
    return out


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_elems_equal_pybgpkit_parsers(path: Path) -> None:
    """Every element, in order, equals pybgpkit-parser's ``Elem.to_dict()`` (the same
    bgpkit-parser underneath: prefixes, AS paths, timestamps, peers, types,
    attributes); the files carry no BGPsec_PATH, so no path is filled in here and
    ``bgpsec_path`` is ``None`` throughout."""
    pybgpkit = require("pybgpkit_parser")
    need(path)
    ours = list(mrt.elems(path))
    theirs = [e.to_dict() for e in pybgpkit.Parser(url=str(path))]
    assert len(ours) == len(theirs) > 0
    for i, (a, b) in enumerate(zip(ours, theirs)):
        assert plain(a) == b, f"{path.name}: element {i}"
        assert a["bgpsec_path"] is None
    records = [e["record"] for e in ours]
    assert records == sorted(records), "file order"


def test_elems_of_a_known_update(ris_updates: Path) -> None:
    """The first element of the 2010 RIS file, written out (pybgpkit-parser agrees,
    above): a check that does not depend on pybgpkit-parser being installed."""
    first = next(iter(mrt.elems(ris_updates)))
    assert set(first) == {
        "timestamp", "elem_type", "peer_ip", "peer_asn", "peer_bgp_id", "prefix",
        "next_hop", "as_path", "origin_asns", "origin", "local_pref", "med",
        "communities", "atomic", "aggr_asn", "aggr_ip", "only_to_customer",
        "bgpsec_path", "record",
    }
    assert first["elem_type"] in ("A", "W")
    assert isinstance(first["timestamp"], float)
    assert 1279829700 <= first["timestamp"] < 1279830000, "2010-07-22 20:15 UTC"
    assert first["atomic"] in ("AG", "NAG")
    assert "/" in first["prefix"]
    assert first["record"] == 0 or first["record"] > 0


def test_compressed_and_plain_give_the_same(tmp_path: Path, ris_updates: Path, ris_plain: Path) -> None:
    """gzip, bzip2, xz (and zstd where the ``zstandard`` module is installed) and the
    plain file give the same elements and records: the format is told by the first
    bytes, not the name."""
    data = ris_plain.read_bytes()
    variants = {
        "gz.mrt": gzip.compress(data),
        "bz2.bin": bz2.compress(data),
        "xz": lzma.compress(data),
        # Concatenated members are one stream (as gzip -c a b > c makes).
        "two-members.gz": gzip.compress(data[: frames(data)[10][3]]) + gzip.compress(data[frames(data)[10][3] :]),
    }
    if importlib.util.find_spec("zstandard") is not None:
        import zstandard

        variants["zst"] = zstandard.ZstdCompressor().compress(data)
    expected = list(mrt.elems(ris_plain))
    expected_records = list(mrt.records(ris_plain))
    assert expected == list(mrt.elems(ris_updates))
    for name, blob in variants.items():
        path = tmp_path / f"file.{name}"
        path.write_bytes(blob)
        assert list(mrt.elems(path)) == expected, name
        assert list(mrt.records(path)) == expected_records, name


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_records_match_an_independent_framing(path: Path) -> None:
    """Every record, in order, has the header fields and body of the same record framed
    with ``struct`` here; BGP4MP message records (RFC 6396 §4.4) give the session and
    the whole BGP message (marker and length included)."""
    need(path)
    raw = path.read_bytes()
    data = gzip.decompress(raw) if path.suffix == ".gz" else bz2.decompress(raw)
    expected = frames(data)
    got = list(mrt.records(path))
    assert len(got) == len(expected) > 0
    messages = 0
    for i, (r, (timestamp, mrt_type, subtype, _, body)) in enumerate(zip(got, expected)):
        assert (r["record"], r["timestamp"], r["type"], r["subtype"]) == (i, timestamp, mrt_type, subtype)
        if mrt_type == 17:  # BGP4MP_ET: the microseconds lead the body
            assert r["microseconds"] == struct.unpack(">I", body[:4])[0]
            body = body[4:]
        else:
            assert r["microseconds"] is None
        assert r["body"] == body
        if mrt_type in (16, 17) and subtype in (1, 4, 6, 7):
            messages += 1
            width = 4 if subtype in (4, 7) else 2
            assert r["as_width"] == width and r["local"] == (subtype in (6, 7))
            fmt = ">II" if width == 4 else ">HH"
            assert (r["peer_asn"], r["local_asn"]) == struct.unpack_from(fmt, body)
            message = r["message"]
            assert message is not None
            assert message[:16] == b"\xff" * 16
            assert struct.unpack_from(">H", message, 16)[0] == len(message)
            assert body.endswith(message)
            assert r["error"] is None
        else:
            assert r["message"] is None and r["peer_asn"] is None
    if "updates" in path.name:
        assert messages > 0


def attr(flags: int, code: int, value: bytes) -> bytes:
    """A path attribute of at most 255 octets (RFC 4271 §4.3)."""
    return bytes([flags, code, len(value)]) + value


def as_path4(*asns: int) -> bytes:
    """An AS_PATH of one AS_SEQUENCE, 4-octet ASes (as TABLE_DUMP_V2 stores it, RFC 6396
    §4.3.4)."""
    return attr(0x40, 2, bytes([2, len(asns)]) + b"".join(struct.pack(">I", a) for a in asns))


def table_dump_v2() -> bytes:
    """A TABLE_DUMP_V2 RIB dump written by hand (RFC 6396 §4.3): a PEER_INDEX_TABLE of
    two peers (an IPv4 one, an IPv6 one, both 4-octet AS), a RIB_IPV4_UNICAST record
    with an entry from each, a RIB_IPV6_UNICAST record (MP_REACH_NLRI abbreviated to
    the next hop, §4.3.4)."""
    peers = (
        bytes([0x02]) + bytes([192, 0, 2, 1]) + bytes([192, 0, 2, 1]) + struct.pack(">I", 64500)
        + bytes([0x03]) + bytes([192, 0, 2, 2]) + bytes.fromhex("20010db8000000000000000000000002")
        + struct.pack(">I", 4200000000)
    )
    index = bytes([198, 51, 100, 1]) + struct.pack(">H", 4) + b"rrc0" + struct.pack(">H", 2) + peers
    origin = attr(0x40, 1, b"\x00")
    v4_a = origin + as_path4(64500, 64510) + attr(0x40, 3, bytes([192, 0, 2, 1])) + attr(0x80, 4, struct.pack(">I", 5)) + attr(0xC0, 8, struct.pack(">HH", 64500, 1))
    v4_b = origin + as_path4(4200000000, 64511, 64511) + attr(0x40, 3, bytes([192, 0, 2, 9]))
    entries = b"".join(
        struct.pack(">HIH", i, 1000, len(a)) + a for i, a in ((0, v4_a), (1, v4_b))
    )
    rib4 = struct.pack(">I", 0) + bytes([24, 203, 0, 113]) + struct.pack(">H", 2) + entries
    v6 = attr(0x40, 1, b"\x02") + as_path4(4200000000, 64512) + attr(0x80, 14, bytes([16]) + bytes.fromhex("20010db8000000000000000000000002"))
    rib6 = struct.pack(">I", 1) + bytes([48]) + bytes.fromhex("20010db80001") + struct.pack(">H", 1) + struct.pack(">HIH", 1, 2000, len(v6)) + v6
    record = lambda subtype, body: struct.pack(">IHHI", 1700000000, 13, subtype, len(body)) + body
    return record(1, index) + record(2, rib4) + record(4, rib6)


def test_table_dump_v2(tmp_path: Path) -> None:
    """A TABLE_DUMP_V2 dump written by hand: one element per RIB entry, the peer's
    address, AS and BGP Identifier from the PEER_INDEX_TABLE; pybgpkit-parser agrees
    where it is installed."""
    path = tmp_path / "bview.mrt"
    path.write_bytes(table_dump_v2())
    got = [plain(e) for e in mrt.elems(path)]
    assert [(e["prefix"], e["peer_ip"], e["peer_asn"], e["peer_bgp_id"], e["as_path"], e["next_hop"]) for e in got] == [
        ("203.0.113.0/24", "192.0.2.1", 64500, "192.0.2.1", "64500 64510", "192.0.2.1"),
        ("203.0.113.0/24", "2001:db8::2", 4200000000, "192.0.2.2", "4200000000 64511 64511", "192.0.2.9"),
        ("2001:db8:1::/48", "2001:db8::2", 4200000000, "192.0.2.2", "4200000000 64512", "2001:db8::2"),
    ]
    assert [e["elem_type"] for e in got] == ["A"] * 3
    assert [e["origin"] for e in got] == ["IGP", "IGP", "INCOMPLETE"]
    assert got[0]["med"] == 5 and got[0]["communities"] == ["64500:1"]
    assert got[1]["origin_asns"] == [64511]
    assert [e["record"] for e in mrt.elems(path)] == [1, 1, 2]
    assert [r["type"] for r in mrt.records(path)] == [13, 13, 13]
    # The peer index table alone: no element, and an empty table of the schema.
    index_only = tmp_path / "index.mrt"
    index_only.write_bytes(table_dump_v2()[: 12 + struct.unpack_from(">I", table_dump_v2(), 8)[0]])
    assert list(mrt.elems(index_only)) == [] and len(list(mrt.records(index_only))) == 1
    if importlib.util.find_spec("pyarrow") is not None:
        empty = mrt.to_arrow(index_only)
        assert empty.num_rows == 0 and empty.schema == mrt.arrow_schema()
    if importlib.util.find_spec("pybgpkit_parser") is not None:
        import pybgpkit_parser

        assert got == [e.to_dict() for e in pybgpkit_parser.Parser(url=str(path))]


def test_to_arrow_is_the_elements_as_columns(ris_updates: Path) -> None:
    """``to_arrow`` has the documented schema and, row by row, the elements (but for
    ``bgpsec_path``, raw there); chunking changes the batches, not the rows."""
    pa = require("pyarrow")
    table = mrt.to_arrow(ris_updates)
    assert table.schema == mrt.arrow_schema()
    assert table.schema.names == [name for name, _ in mrt.COLUMNS]
    expected = [plain(e) for e in mrt.elems(ris_updates)]
    assert [plain(row) for row in table.to_pylist()] == expected
    assert table.column("bgpsec_path").null_count == len(table)
    small = mrt.to_arrow(ris_updates, chunk_rows=100)
    assert len(small.to_batches()) == -(-len(expected) // 100)
    assert small.equals(table)
    # Nulls where pybgpkit-parser has None: withdrawals have no AS path.
    withdrawals = sum(1 for e in expected if e["elem_type"] == "W")
    assert table.column("as_path").null_count >= withdrawals > 0
    assert isinstance(table, pa.Table)


def test_to_arrow_of_a_rib_dump(ris_files: List[Path]) -> None:
    """The 2002 bview (TABLE_DUMP), the largest file: same rows as the elements."""
    require("pyarrow")
    bview = need(RIS_DIR / "ris-bview.20020722.2337.gz")
    table = mrt.to_arrow(bview)
    rows = table.to_pylist()
    ours = list(mrt.elems(bview))
    assert len(rows) == len(ours) > 10000
    assert [plain(r) for r in rows[::997]] == [plain(e) for e in ours[::997]]


def test_to_pandas(ris_updates: Path) -> None:
    """``to_pandas``: one row per element, nullable integers for optional attributes."""
    pd = require("pandas")
    df = mrt.to_pandas(ris_updates)
    expected = list(mrt.elems(ris_updates))
    assert list(df.columns) == [name for name, _ in mrt.COLUMNS]
    assert len(df) == len(expected)
    assert str(df["local_pref"].dtype) == "UInt32"
    assert str(df["peer_asn"].dtype) == "UInt32"
    assert df["prefix"].tolist() == [e["prefix"] for e in expected]
    assert df["timestamp"].tolist() == [e["timestamp"] for e in expected]
    med = [None if pd.isna(v) else int(v) for v in df["med"]]
    assert med == [e["med"] for e in expected]
    asns = [None if v is None else list(v) for v in df["origin_asns"]]
    assert asns == [e["origin_asns"] for e in expected]


def rfc8608_updates() -> List[Dict[str, Any]]:
    """The RFC 8608 Appendix A UPDATEs, BGPsec_PATH's type code 30 (as printed, before
    IANA's assignment) changed to 33 (RFC 8205 §9), as the Rust tests do."""
    data = json.loads(need(REPO / "crates" / "hopsig-bgp" / "tests" / "data" / "rfc8608_appendix_a.json").read_text())
    out = []
    for e in data["examples"]:
        update = bytearray.fromhex(e["update_as_printed"])
        at = update.find(bytes.fromhex("901E"))
        assert at > 0
        update[at + 1] = 0x21
        out.append({**e, "update": bytes(update)})
    return out


def bgp4mp_as4(timestamp: int, peer_as: int, local_as: int, peer_ip: bytes, local_ip: bytes, message: bytes) -> bytes:
    """A BGP4MP_MESSAGE_AS4 record (RFC 6396 §4.4.3), written here by hand."""
    afi = 1 if len(peer_ip) == 4 else 2
    body = struct.pack(">IIHH", peer_as, local_as, 0, afi) + peer_ip + local_ip + message
    return struct.pack(">IHHI", timestamp, 16, 4, len(body)) + body


def test_bgpsec_path_decoded_as_the_reference_decodes_it(tmp_path: Path, interop: Path) -> None:
    """The RFC 8608 Appendix A UPDATEs in an MRT file: ``bgpsec_path`` is the
    BGPsec_PATH that interop/python/bgpsec_reference.py (an independent implementation)
    parses from the same bytes, the signatures those of the RFC, newest first;
    ``as_path`` is the AS_PATH the Secure_Path stands for (RFC 8205 §4.4), where
    pybgpkit-parser leaves None -- the one place hopsig adds to its fields."""
    sys.path.insert(0, str(interop))
    try:
        ref = pytest.importorskip("bgpsec_reference")
    finally:
        sys.path.remove(str(interop))
    examples = rfc8608_updates()
    blob = b"".join(
        bgp4mp_as4(1000 + i, 65536, 65537, bytes([192, 0, 2, 1]), bytes([192, 0, 2, 2]), e["update"])
        for i, e in enumerate(examples)
    )
    path = tmp_path / "rfc8608.mrt"
    path.write_bytes(blob)
    got = list(mrt.elems(path))
    assert [e["prefix"] for e in got] == [e["prefix"] for e in examples]
    for elem, example in zip(got, examples):
        update = ref.parse_update_message(example["update"])
        value = next(a.value for a in update.path_attributes if a.type_code == 33)
        expected = ref.parse_bgpsec_path(value)
        path_dict = elem["bgpsec_path"]
        assert path_dict is not None and path_dict["error"] is None
        assert path_dict["secure_path"] == [
            {"pcount": s.pcount, "flags": s.flags, "asn": s.asn} for s in expected.secure_path
        ]
        assert path_dict["signature_blocks"] == [
            {"suite": b.algorithm_suite, "segments": [{"ski": s.ski, "signature": s.signature} for s in b.segments]}
            for b in expected.signature_blocks
        ]
        sigs = [s["signature"].hex().upper() for s in path_dict["signature_blocks"][0]["segments"]]
        assert sigs == [s["signature"] for s in reversed(example["signatures"])]
        assert elem["as_path"] == "65536 64496"
        assert elem["origin_asns"] == [64496]
        assert elem["next_hop"] == example["next_hop"]
    records = list(mrt.records(path))
    assert [r["message"] for r in records] == [e["update"] for e in examples]
    assert records[0]["peer_ip"] == "192.0.2.1" and records[0]["local_asn"] == 65537
    pa = require("pyarrow")
    raw = mrt.to_arrow(path).column("bgpsec_path").to_pylist()
    assert raw[0] is not None and raw[0] in examples[0]["update"]
    assert isinstance(mrt.to_arrow(path), pa.Table)


def test_a_bgpsec_path_that_does_not_decode_says_why(tmp_path: Path) -> None:
    """A BGPsec_PATH whose Secure_Path Length is wrong: the element is still given,
    with the decoder's reason in ``bgpsec_path["error"]`` and no AS path made up."""
    example = rfc8608_updates()[0]["update"]
    at = example.find(bytes.fromhex("9021"))
    broken = bytearray(example)
    broken[at + 4 : at + 6] = b"\x00\x07"  # Secure_Path Length 7: not 2 + 6n
    path = tmp_path / "broken.mrt"
    path.write_bytes(bgp4mp_as4(1, 65536, 65537, bytes(4), bytes(4), bytes(broken)))
    (elem,) = list(mrt.elems(path))
    decoded = elem["bgpsec_path"]
    assert decoded is not None
    assert decoded["secure_path"] is None and decoded["signature_blocks"] is None
    assert decoded["error"]
    assert elem["as_path"] is None


def test_errors_name_the_file(tmp_path: Path) -> None:
    """A missing file or a folder: reason ``io``; a file that is not MRT: reason
    ``mrt``, saying what it looks like (as the CLI says it); both exit class 2."""
    missing = tmp_path / "missing.mrt"
    for call in (mrt.elems, mrt.records, mrt.to_arrow):
        with pytest.raises(InputError) as e:
            call(missing)
        assert e.value.reason == "io" and e.value.exit_code == 2
        assert str(missing) in str(e.value)
    with pytest.raises(InputError) as e:
        mrt.elems(tmp_path)
    assert e.value.reason == "io"
    text = tmp_path / "prefixes.csv"
    text.write_text("prefix,origin\n192.0.2.0/24,64500\n")
    with pytest.raises(InputError) as e:
        mrt.records(text)
    assert e.value.reason == "mrt"
    assert "not an MRT file" in str(e.value) and str(text) in str(e.value)
    assert isinstance(e.value, hopsig.HopsigError)


def read_all(path: Path) -> Tuple[int, int]:
    """Elements and records of ``path``, read whole."""
    return len(list(mrt.elems(path, batch_size=64))), len(list(mrt.records(path, batch_size=64)))


def test_truncated_files_raise_after_what_was_read(tmp_path: Path, ris_plain: Path, ris_updates: Path) -> None:
    """A file cut inside a record, plain or gzip: InputError (reason ``mrt``, naming the
    file and the record) after every element before the cut -- never a silent end,
    never another exception. Cut at a record boundary, it is a shorter file."""
    rng = random.Random(27)
    data = ris_plain.read_bytes()
    boundaries = {f[3] for f in frames(data)} | {len(data)}
    full = list(mrt.elems(ris_plain))
    cuts = rng.sample(range(1, len(data)), 40) + sorted(boundaries)[1:4]
    path = tmp_path / "cut.mrt"
    for cut in cuts:
        path.write_bytes(data[:cut])
        got: List[Any] = []
        if cut in boundaries:
            got = list(mrt.elems(path))
            assert got == full[: len(got)]
            continue
        with pytest.raises(InputError) as e:
            for elem in mrt.elems(path, batch_size=16):
                got.append(elem)
        assert e.value.reason == "mrt", cut
        assert str(path) in str(e.value) and "MRT record" in str(e.value)
        assert got == full[: len(got)], "what came before the cut is read"
        with pytest.raises(InputError):
            list(mrt.records(path))
    gz = ris_updates.read_bytes()
    for cut in rng.sample(range(20, len(gz) - 8), 15):
        path.write_bytes(gz[:cut])
        with pytest.raises(InputError) as e:
            read_all(path)
        assert e.value.reason == "mrt"
        assert "gzip" in str(e.value), str(e.value)


def test_byte_flips_never_crash(tmp_path: Path, ris_plain: Path, ris_updates: Path) -> None:
    """Seeded random byte flips in the plain and the gzip file: each read ends cleanly
    or with InputError (reason ``mrt``); pyo3 would turn a Rust panic into
    PanicException, which fails the test."""
    rng = random.Random(2710)
    outcomes = {"read": 0, "refused": 0}
    for source in (ris_plain, ris_updates):
        data = source.read_bytes()
        for _ in range(60):
            flipped = bytearray(data)
            for _ in range(rng.randint(1, 4)):
                flipped[rng.randrange(len(flipped))] ^= 1 << rng.randrange(8)
            path = tmp_path / f"flipped{source.suffix}"
            path.write_bytes(bytes(flipped))
            try:
                read_all(path)
                if importlib.util.find_spec("pyarrow"):
                    mrt.to_arrow(path)
                outcomes["read"] += 1
            except InputError as e:
                assert e.reason == "mrt", e
                assert str(path) in str(e)
                outcomes["refused"] += 1
    assert outcomes["read"] > 0 and outcomes["refused"] > 0, outcomes


def test_threads_read_files_at_once(ris_files: List[Path]) -> None:
    """Several Python threads reading files at once (the reads run with the GIL
    released) get what one thread gets."""
    expected = {p: list(mrt.elems(p)) for p in ris_files if "updates" in p.name}
    got: Dict[Path, List[Any]] = {}

    def read(p: Path) -> None:
        got[p] = list(mrt.elems(p))

    threads = [threading.Thread(target=read, args=(p,)) for p in expected]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == expected


def test_the_gil_is_released_while_a_batch_is_read() -> None:
    """With thread switches by time turned off (a switch interval of 1000 s), the main
    thread can run while another thread is in a call only if that call releases the
    GIL. The other thread reads the bview (115,521 elements) in one batch; the main
    thread, woken as the read starts, finds it still running. Were the GIL held for the
    batch, the main thread would run only after the whole read."""
    bview = need(RIS_DIR / "ris-bview.20020722.2337.gz")
    started, done = threading.Event(), threading.Event()
    count: List[int] = []

    def read() -> None:
        parser = mrt.elems(bview, batch_size=1 << 20)
        started.set()
        count.append(sum(1 for _ in parser))
        done.set()

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1000)
    try:
        worker = threading.Thread(target=read)
        worker.start()
        started.wait()
        running = not done.is_set()
        worker.join()
    finally:
        sys.setswitchinterval(interval)
    assert running, "the main thread ran only after the read"
    assert count == [115521]


def test_parser_object(ris_updates: Path) -> None:
    """``Parser`` is an iterator of its own, named for the public module; a finished
    one stays finished."""
    p = mrt.Parser(str(ris_updates), batch_size=1)
    assert iter(p) is p
    assert type(p).__module__ == "hopsig.mrt"
    assert str(ris_updates) in repr(p)
    n = sum(1 for _ in p)
    assert n == len(list(mrt.elems(ris_updates)))
    assert next(p, None) is None
    assert mrt.Parser.__doc__ and mrt.Records.__doc__


def test_sign_and_validate_come_from_the_engine() -> None:
    """``hopsig.mrt.sign_mrt`` / ``validate_mrt`` are :mod:`hopsig.engine`'s."""
    from hopsig import engine

    if not hasattr(engine, "sign_mrt"):
        pytest.skip("hopsig.engine has no sign_mrt yet (engineer 4's part)")
    assert mrt.sign_mrt is engine.sign_mrt
    assert mrt.validate_mrt is engine.validate_mrt
    with pytest.raises(AttributeError):
        getattr(mrt, "no_such_name")
