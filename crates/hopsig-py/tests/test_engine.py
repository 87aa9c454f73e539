"""hopsig.engine: whole-file jobs (sign, validate, key folders) over the RIS files.

The summaries are checked against the ``hopsig`` CLI's ``--json`` files for the same
input (the two share the library code that builds them: any drift fails here), and
against counts made independently: the keys folder listed on disk, the verdict
columns summed in Python.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import threading
from pathlib import Path
from typing import Any, Dict, List

import pytest

from hopsig import engine
from hopsig.errors import InputError

from conftest import REPO

#: Fields that differ between two runs over the same input: times and rates.
TIMING = {"seconds", "updates_per_second", "signatures_per_second", "metadata"}


def untimed(summary: Dict[str, Any]) -> Dict[str, Any]:
    """``summary`` without its timing fields."""
    return {k: v for k, v in summary.items() if k not in TIMING}


@pytest.fixture(scope="module")
def signed(ris_updates: Path, tmp_path_factory: pytest.TempPathFactory) -> Dict[str, Any]:
    """The small RIS file signed once: paths and the summary."""
    d = tmp_path_factory.mktemp("signed")
    out, keys = d / "signed.mrt", d / "keys"
    calls: List[int] = []
    summary = engine.sign_mrt(ris_updates, out, keys, threads=2, progress=calls.append)
    return {"out": out, "keys": keys, "summary": summary, "progress": calls, "input": ris_updates}


def key_files(keys: Path) -> List[int]:
    """The ASes with an ``AS<n>.key`` file in ``keys``, ascending."""
    return sorted(int(p.name[2:-4]) for p in keys.glob("AS*.key"))


def test_sign_then_validate_is_all_valid(signed: Dict[str, Any]) -> None:
    s = signed["summary"]
    assert s["updates"] > 1000
    assert s["updates"] + s["skipped"] == s["announcements"]
    assert sum(s["skipped_by_reason"].values()) == s["skipped"]
    assert s["suite"] == 1 and s["suite_name"] == "ecdsa-p256-sha256"
    # Every AS got a key file (owner-only) and an entry in bgpsec_keys.json.
    ases = key_files(signed["keys"])
    assert len(ases) == s["router_keys"] == s["keys_generated"]
    doc = json.loads((signed["keys"] / "bgpsec_keys.json").read_text())
    assert [e["asn"] for e in doc["bgpsec_keys"]] == ases
    mode = stat.S_IMODE(os.stat(signed["keys"] / f"AS{ases[0]}.key").st_mode)
    assert mode == 0o600
    # The ASes signing needs keys for are exactly those the folder got.
    assert engine.mrt_ases(signed["input"]) == ases
    # Progress: called, never going back, the last with every record.
    calls = signed["progress"]
    assert calls and calls == sorted(calls) and calls[-1] == s["records"]

    v = engine.validate_mrt(signed["out"], signed["keys"] / "bgpsec_keys.json", threads=2)
    assert v["updates"] == v["valid"] == s["updates"]
    assert v["not_valid"] == 0 and v["not_valid_by_reason"] == {}
    assert v["signatures"] == s["signatures"]
    assert v["records"] == s["updates"]


def test_verdict_columns_match_the_summary(signed: Dict[str, Any]) -> None:
    v = engine.validate_mrt(
        signed["out"], signed["keys"] / "bgpsec_keys.json", threads=2, verdicts=True
    )
    cols = v["verdicts"]
    n = v["updates"]
    assert set(cols) == {"record", "bgpsec", "reason", "signatures", "detail"}
    assert all(len(c) == n for c in cols.values())
    assert cols["record"] == sorted(cols["record"])
    assert cols["bgpsec"].count("valid") == v["valid"]
    assert sum(cols["signatures"]) == v["signatures"]
    assert set(cols["reason"]) == {None} and set(cols["detail"]) == {None}


def test_other_keys_and_a_flipped_byte_are_not_valid(
    signed: Dict[str, Any], tmp_path: Path
) -> None:
    # Signed again with keys of another folder: every UPDATE's (AS, SKI) is unknown
    # to the first folder's JSON.
    other = tmp_path / "other.mrt"
    engine.sign_mrt(signed["input"], other, tmp_path / "keys2", threads=2)
    v = engine.validate_mrt(other, signed["keys"] / "bgpsec_keys.json", verdicts=True)
    assert v["valid"] == 0
    assert v["not_valid_by_reason"] == {"no_key": v["updates"]}
    assert len(v["first_failures"]) == 10
    assert v["verdicts"]["reason"][:3] == ["no_key"] * 3

    # The last octet of the file is the last UPDATE's last signature's: flipped, that
    # UPDATE alone is not valid.
    data = bytearray(signed["out"].read_bytes())
    data[-1] ^= 0x01
    bad = tmp_path / "bad.mrt"
    bad.write_bytes(bytes(data))
    v = engine.validate_mrt(bad, signed["keys"] / "bgpsec_keys.json", verdicts=True)
    assert v["not_valid"] == 1, v["not_valid_by_reason"]
    assert v["not_valid_by_reason"] == {"bad_signature": 1}
    last = v["verdicts"]
    assert last["bgpsec"][-1] == "not-valid" and last["record"][-1] == v["records"] - 1
    assert last["detail"][-1] and last["reason"][-1] == "bad_signature"
    assert v["first_failures"][0]["record"] == v["records"] - 1


def test_summaries_equal_the_clis_json(
    signed: Dict[str, Any], tmp_path: Path, hopsig_cli: Path
) -> None:
    binary = hopsig_cli
    keys_json = signed["keys"] / "bgpsec_keys.json"
    report = tmp_path / "cli.json"
    subprocess.run(
        [
            binary, "bgpsec", "validate-mrt", signed["out"], "--keys", keys_json,
            "--threads", "1", "--json", report,
        ],
        check=True,
        capture_output=True,
    )
    cli = json.loads(report.read_text())
    mine = engine.validate_mrt(signed["out"], keys_json, threads=1)
    assert untimed(mine) == untimed(cli)

    # The unsigned RIS file: every UPDATE 'unsigned'; the same summary again.
    report = tmp_path / "cli2.json"
    subprocess.run(
        [
            binary, "bgpsec", "validate-mrt", signed["input"], "--keys", keys_json,
            "--threads", "1", "--json", report,
        ],
        capture_output=True,
    )
    cli = json.loads(report.read_text())
    mine = engine.validate_mrt(signed["input"], keys_json, threads=1)
    assert mine["not_valid_by_reason"].get("unsigned", 0) > 0
    assert untimed(mine) == untimed(cli)


def test_generate_false_signs_with_the_folders_keys_only(
    signed: Dict[str, Any], tmp_path: Path
) -> None:
    with pytest.raises(InputError) as e:
        engine.sign_mrt(signed["input"], tmp_path / "x.mrt", tmp_path / "empty", generate=False)
    assert e.value.reason == "no-router-key"
    assert str(signed["input"]) in str(e.value)
    assert not (tmp_path / "x.mrt").exists()
    # The pre-pass of a distributed run: the ASes, their keys, then signing alone.
    keys = tmp_path / "keys"
    ases = engine.mrt_ases(signed["input"])
    assert engine.generate_keys(keys, ases, threads=2) == len(ases)
    assert engine.generate_keys(keys, ases[:10]) == 0
    s = engine.sign_mrt(signed["input"], tmp_path / "y.mrt", keys, generate=False, threads=2)
    assert s["keys_generated"] == 0 and s["router_keys"] == len(ases)
    v = engine.validate_mrt(tmp_path / "y.mrt", keys / "bgpsec_keys.json")
    assert v["valid"] == v["updates"] == s["updates"]
    # The same folder again, generating: nothing new.
    s2 = engine.sign_mrt(signed["input"], tmp_path / "y.mrt", keys, threads=2)
    assert s2["keys_generated"] == 0
    assert untimed(s2) == untimed(s)


def test_concurrent_generate_keys_share_one_folder(tmp_path: Path) -> None:
    keys = tmp_path / "keys"
    lists = [list(range(64500, 64600)), list(range(64550, 64650)), list(range(64590, 64700))]
    added: List[int] = [0] * len(lists)

    def run(i: int) -> None:
        added[i] = engine.generate_keys(keys, lists[i], threads=1)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(lists))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    union = sorted(set().union(*lists))
    # Each AS was added once, by whichever call saved it first.
    assert sum(added) == len(union)
    assert key_files(keys) == union
    doc = json.loads((keys / "bgpsec_keys.json").read_text())
    assert [e["asn"] for e in doc["bgpsec_keys"]] == union
    assert not [p for p in keys.iterdir() if p.name.startswith(".") and "hopsig" in p.name]


def test_errors_name_the_file_and_the_reason(tmp_path: Path, ris_updates: Path) -> None:
    missing = tmp_path / "missing.mrt"
    with pytest.raises(InputError) as e:
        engine.validate_mrt(missing)
    assert e.value.reason == "io" and str(missing) in str(e.value)
    assert e.value.exit_code == 2
    text = tmp_path / "text.mrt"
    text.write_text("this is no MRT file, just text\n" * 10)
    for call in (
        lambda: engine.validate_mrt(text),
        lambda: engine.sign_mrt(text, tmp_path / "o.mrt", tmp_path / "k"),
        lambda: engine.mrt_ases(text),
    ):
        with pytest.raises(InputError) as e:
            call()
        assert e.value.reason == "mrt" and str(text) in str(e.value)
    with pytest.raises(InputError) as e:
        engine.validate_mrt(ris_updates, tmp_path / "no-keys.json")
    assert e.value.reason == "io" and "no-keys.json" in str(e.value)
    with pytest.raises(InputError) as e:
        engine.validate_mrt(ris_updates, threads=0)
    assert e.value.reason == "bad-argument"
    with pytest.raises(InputError) as e:
        engine.sign_mrt(ris_updates, tmp_path / "o.mrt", tmp_path / "k", suite="no-such-suite")
    assert e.value.reason == "bad-argument"
    # A secret key file that is no key: named.
    (tmp_path / "badkeys").mkdir()
    (tmp_path / "badkeys" / "AS1.key").write_text("not a key")
    with pytest.raises(InputError) as e:
        engine.generate_keys(tmp_path / "badkeys", [1, 2])
    assert e.value.reason == "key" and "AS1.key" in str(e.value)
    # Signing over the input itself is refused.
    copy = tmp_path / "in.mrt.gz"
    copy.write_bytes(ris_updates.read_bytes())
    with pytest.raises(InputError) as e:
        engine.sign_mrt(copy, copy, tmp_path / "k2")
    assert e.value.reason == "io"
    assert copy.read_bytes() == ris_updates.read_bytes()


def test_a_progress_exception_is_raised_after_the_job(signed: Dict[str, Any]) -> None:
    def boom(done: int) -> None:
        raise RuntimeError(f"stop at {done}")

    with pytest.raises(RuntimeError, match="stop at"):
        engine.validate_mrt(signed["out"], signed["keys"] / "bgpsec_keys.json", progress=boom)


def test_rpki_files_add_the_rov_and_aspa_tables_as_the_cli(
    signed: Dict[str, Any], tmp_path: Path, hopsig_cli: Path
) -> None:
    # Every prefix covered by a VRP of an AS that originates nothing: all Invalid.
    roas = tmp_path / "roas.json"
    roas.write_text(
        json.dumps(
            {
                "roas": [
                    {"prefix": "0.0.0.0/0", "maxLength": 32, "asn": 64496, "ta": "test"},
                    {"prefix": "::/0", "maxLength": 128, "asn": 64496, "ta": "test"},
                ]
            }
        )
    )
    keys_json = signed["keys"] / "bgpsec_keys.json"
    mine = engine.validate_mrt(
        signed["out"], keys_json, rpki=[roas], role="customer", threads=1
    )
    n = mine["announcements"]
    assert n >= mine["updates"] and mine["valid"] == mine["updates"]
    assert mine["rov"] == {"invalid": n} and mine["aspa"] == {"unknown": n}
    assert mine["aspa_role"] == "customer"
    assert sum(c["count"] for c in mine["cross"]) == n
    report = tmp_path / "cli.json"
    subprocess.run(
        [
            hopsig_cli, "bgpsec", "validate-mrt", signed["out"], "--keys", keys_json,
            "--rpki", roas, "--role", "customer", "--threads", "1", "--json", report,
        ],
        check=True,
        capture_output=True,
    )
    assert untimed(mine) == untimed(json.loads(report.read_text()))
    with pytest.raises(InputError) as e:
        engine.validate_mrt(signed["out"], keys_json, rpki=[roas], role="sideways")
    assert e.value.reason == "bad-argument"
    with pytest.raises(InputError) as e:
        engine.validate_mrt(signed["out"], rtr=["no-port"])
    assert e.value.reason == "bad-argument" and "HOST:PORT" in str(e.value)


def test_replay_is_the_clis_document(ris_updates: Path, tmp_path: Path, hopsig_cli: Path) -> None:
    mine = engine.replay(ris_updates, schemes=["none", "bgpsec-ecdsa"], limit=100)
    report = tmp_path / "replay.json"
    subprocess.run(
        [
            hopsig_cli, "replay", ris_updates, "--schemes", "none,bgpsec-ecdsa",
            "--limit", "100", "--json", report,
        ],
        check=True,
        capture_output=True,
    )
    cli = json.loads(report.read_text())
    assert set(mine) == set(cli) == {"replay", "memory"}
    assert mine["memory"] is None
    r, c = mine["replay"], cli["replay"]
    assert set(r) == set(c)
    # Everything but the measured times: the workload, the peer, Table IV.
    for k in ("workload", "file", "peer", "mode", "threads", "speedup", "limit", "trace", "incoming_per_s"):
        assert r[k] == c[k], k
    assert r["trace"]["announcements"] == 100
    assert [s["scheme"] for s in r["schemes"]] == ["none", "bgpsec-ecdsa"]
    assert set(r["schemes"][1]) == set(c["schemes"][1])
    with pytest.raises(InputError) as e:
        engine.replay(ris_updates, schemes=["no-such-scheme"])
    assert e.value.reason == "bad-argument" and "bgpsec-ecdsa" in str(e.value)
    with pytest.raises(InputError) as e:
        engine.replay(ris_updates, peer=1, limit=10)
    assert e.value.reason == "replay" and "no peer AS1" in str(e.value)
    with pytest.raises(InputError) as e:
        engine.replay(tmp_path / "missing.gz")
    assert e.value.reason == "io"


def test_replay_validates_in_cross_update_batches(
    ris_updates: Path, tmp_path: Path, hopsig_cli: Path
) -> None:
    """``batch=N`` (the CLI's ``--batch N``): BGPsec routers validate N announcements
    per cross-UPDATE batch, reported per scheme as ``validate_batch`` (1 for schemes
    without such a batch); every announcement still served; 0 is refused."""
    mine = engine.replay(ris_updates, schemes=["none", "bgpsec-ecdsa"], limit=50, batch=8)
    report = tmp_path / "replay.json"
    subprocess.run(
        [
            hopsig_cli, "replay", ris_updates, "--schemes", "none,bgpsec-ecdsa",
            "--limit", "50", "--batch", "8", "--json", report,
        ],
        check=True,
        capture_output=True,
    )
    cli = json.loads(report.read_text())
    for doc in (mine, cli):
        schemes = doc["replay"]["schemes"]
        assert [(s["scheme"], s["validate_batch"]) for s in schemes] == [
            ("none", 1), ("bgpsec-ecdsa", 8)
        ]
        assert all(sum(s["outgoing_per_s"]) == 50 for s in schemes)
        assert schemes[1]["validate_us"]["mean"] > 0
    alone = engine.replay(ris_updates, schemes=["bgpsec-ecdsa"], limit=10)
    assert alone["replay"]["schemes"][0]["validate_batch"] == 1
    with pytest.raises(InputError) as e:
        engine.replay(ris_updates, limit=10, batch=0)
    assert e.value.reason == "bad-argument" and "batch" in str(e.value)


def test_the_gil_is_released_while_a_job_runs(signed: Dict[str, Any]) -> None:
    # A Python thread counts while validate_mrt runs (one thread, no cache, no
    # progress callable: the GIL is never taken back during the job). Were the GIL
    # held for the job, the count could move only in the one switch interval (5 ms)
    # before the call; released, it moves for the whole run (about a second here).
    box = [0]
    stop = threading.Event()

    def count() -> None:
        while not stop.is_set():
            box[0] += 1

    t = threading.Thread(target=count)
    t.start()
    try:
        while box[0] == 0:
            pass
        before = box[0]
        engine.validate_mrt(
            signed["out"], signed["keys"] / "bgpsec_keys.json", threads=1, signature_cache=0
        )
        during = box[0] - before
    finally:
        stop.set()
        t.join()
    assert during > 200_000, during


def test_keys_are_reused_while_their_file_is_unchanged(
    signed: Dict[str, Any], tmp_path: Path
) -> None:
    """A process keeps the last keys it loaded (src/engine/loaded_keys.rs): a new
    length or modification time loads them again; the same stamp reuses them."""
    other_dir = tmp_path / "keys2"
    engine.sign_mrt(signed["input"], tmp_path / "other.mrt", other_dir, threads=2)
    ours = (signed["keys"] / "bgpsec_keys.json").read_bytes()
    theirs = (other_dir / "bgpsec_keys.json").read_bytes()
    assert ours != theirs and len(ours) == len(theirs)

    keys = tmp_path / "keys.json"
    keys.write_bytes(ours)
    at = 2_000_000_000  # with `at`, reuse is not bounded in time
    first = engine.validate_mrt(signed["out"], keys, at=at)
    assert first["valid"] == first["updates"]

    # Changed (a new modification time): loaded again, so nothing is valid now.
    stamp = keys.stat()
    keys.write_bytes(theirs)
    os.utime(keys, ns=(stamp.st_atime_ns, stamp.st_mtime_ns + 1_000_000))
    changed = engine.validate_mrt(signed["out"], keys, at=at)
    assert changed["valid"] == 0 and changed["not_valid_by_reason"] == {"no_key": changed["updates"]}

    # Same length and modification time as the set loaded last: that set is reused
    # (what the stamp cannot see, documented in the module).
    keys.write_bytes(ours)
    os.utime(keys, ns=(stamp.st_atime_ns, stamp.st_mtime_ns + 1_000_000))
    reused = engine.validate_mrt(signed["out"], keys, at=at)
    assert reused["valid"] == 0

    # Another `at`, or the file touched: loaded afresh from what the file holds.
    again = engine.validate_mrt(signed["out"], keys, at=at + 1)
    assert again["valid"] == again["updates"]
