# %% [markdown]
# # A tour of hopsig from Python
#
# A RIPE RIS updates file read as a pandas DataFrame, every announcement signed as the
# BGPsec UPDATE its AS path would carry (RFC 8205 §4), the signed file validated
# (RFC 8205 §5) twice: with every router key, and as if one AS in ten had not
# published its key (partial deployment), then the verdict mix and the AS-path length
# distribution plotted with matplotlib.
#
# Cells are marked `# %%` (Jupyter, VS Code and jupytext open the file as a notebook);
# as a plain script:
#
#     MPLBACKEND=Agg python docs/examples/python_tour.py [MRT_FILE] [OUT_DIR]
#
# MRT_FILE defaults to the smallest RIS file of `../shared/data/mrt` beside the clone,
# OUT_DIR to `python-tour/` (created; the signed file, the keys, two PNG plots and
# `verdicts.csv` are written there). `crates/hopsig-py/tests/test_example.py` runs it.
# Install the package first: `pip install './crates/hopsig-py[pandas]' matplotlib`.

# %%
import json
import random
import sys
from collections import Counter
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

import hopsig
import hopsig.mrt
from hopsig.errors import HopsigError

REPO = Path(__file__).resolve().parents[2]
mrt_file = Path(sys.argv[1]) if len(sys.argv) > 1 else REPO.parent / "shared" / "data" / "mrt" / "ris-updates.20100722.2015.gz"
out = Path(sys.argv[2]) if len(sys.argv) > 2 else Path("python-tour")
out.mkdir(parents=True, exist_ok=True)
print(f"hopsig {hopsig.__version__}: {mrt_file} -> {out}/")

# %% [markdown]
# ## Load: one row per announcement or withdrawal
#
# `to_pandas` builds the columns in Rust; the column names and value types are
# pybgpkit-parser's (`elem_type` "A"/"W", `as_path` a space-separated string, ...).

# %%
elems = hopsig.mrt.to_pandas(mrt_file)
announcements = elems[elems["elem_type"] == "A"]
print(
    f"{len(elems)} elems: {len(announcements)} announcements, "
    f"{len(elems) - len(announcements)} withdrawals, from {elems['peer_asn'].nunique()} peers"
)


def path_length(as_path: object) -> int:
    """Hops of an AS path as pybgpkit-parser writes it ("3356 1299 {64500,64501}"):
    an AS_SET counts as one hop (RFC 4271 §9.1.2.2 (a)), prepending counts each time."""
    return len(str(as_path).split()) if isinstance(as_path, str) else 0


lengths = announcements["as_path"].map(path_length)
print(lengths.describe().to_string())

# %% [markdown]
# ## Sign: every announcement as a BGPsec UPDATE
#
# Each AS of the path signs in turn, origin first (RFC 8205 §4.2), with a key made
# for it in `keys/` (one `AS<n>.key` per AS and `bgpsec_keys.json`, rpki-client's
# format). The summary is `hopsig bgpsec sign-mrt --json`'s document.

# %%
signed = out / "signed.mrt"
keys_dir = out / "keys"
sign_summary = hopsig.mrt.sign_mrt(mrt_file, signed, keys_dir, suite=1)
print(json.dumps({k: v for k, v in sign_summary.items() if not isinstance(v, (dict, list))}, indent=1))

# %% [markdown]
# ## Validate: all keys, then one AS in ten without a published key
#
# With every key each UPDATE is Valid. Then a keys file without the keys of a seeded
# random tenth of the ASes: an UPDATE one of them signed has a signature no router key
# matches, so it is Not Valid (RFC 8205 §5.2) with the validator's reason name.

# %%
all_keys = keys_dir / "bgpsec_keys.json"
full = hopsig.mrt.validate_mrt(signed, all_keys, verdicts=True)
assert full["not_valid"] == 0, full["first_failures"]

published = json.loads(all_keys.read_text())["bgpsec_keys"]
ases = sorted({k["asn"] for k in published})
rng = random.Random(27)
missing = set(rng.sample(ases, max(1, len(ases) // 10)))
partial_keys = out / "bgpsec_keys.partial.json"
partial_keys.write_text(json.dumps({"bgpsec_keys": [k for k in published if k["asn"] not in missing]}))
partial = hopsig.mrt.validate_mrt(signed, partial_keys, verdicts=True)
print(f"{len(missing)} of {len(ases)} ASes without a key: {partial['valid']} valid, {partial['not_valid']} not valid")

verdicts = pd.DataFrame(partial["verdicts"])
verdicts.to_csv(out / "verdicts.csv", index=False)

# %% [markdown]
# ## A bad input is an exception with the CLI's reason and exit class

# %%
try:
    hopsig.mrt.validate_mrt(out / "no-such-file.mrt", all_keys)
except HopsigError as e:
    print(f"{type(e).__name__} (exit {e.exit_code}, reason {e.reason!r}): {e}")

# %% [markdown]
# ## The verdict mix and the path-length distribution

# %%
mix = Counter(
    "valid" if state == "valid" else f"not valid: {reason}"
    for state, reason in zip(verdicts["bgpsec"], verdicts["reason"])
)
table = pd.DataFrame(
    [(name, n, 100.0 * n / len(verdicts)) for name, n in mix.most_common()],
    columns=["verdict", "UPDATEs", "%"],
)
print(table.to_string(index=False, float_format="%.1f"))

fig, ax = plt.subplots(figsize=(7, 3.5))
ax.barh(table["verdict"], table["UPDATEs"], color=["tab:green" if v == "valid" else "tab:red" for v in table["verdict"]])
ax.invert_yaxis()
ax.set_xlabel("UPDATEs")
ax.set_title(f"BGPsec verdicts, {len(missing)} of {len(ases)} ASes without a router key")
fig.tight_layout()
fig.savefig(out / "verdict_mix.png", dpi=100)

fig, ax = plt.subplots(figsize=(7, 3.5))
counts = lengths.value_counts().sort_index()
ax.bar(counts.index, counts.values)
ax.set_xlabel("AS path length (hops, prepending included)")
ax.set_ylabel("announcements")
ax.set_title(mrt_file.name)
fig.tight_layout()
fig.savefig(out / "path_lengths.png", dpi=100)
print(f"wrote {out / 'verdict_mix.png'}, {out / 'path_lengths.png'}, {out / 'verdicts.csv'}")
