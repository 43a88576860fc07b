"""stable_names.py - the stable-name rules of docs/stack-rules.md ("Stable
names"), written from that page with regular expressions (not from
tracefold's C code), for the oracles that predict profiles:

  - " at 0x<hex>" (a Python object address, ending at a non-identifier
    character or the end) is removed;
  - PyTorch NVTX suffixes ", seq = <digits>" and ", op_id = <digits>" (each
    followed by "," or the end) are removed, and ", input_op_ids = " with
    everything after it;
  - a whole name "ProfilerStep#<digits>" becomes "ProfilerStep".

The rules apply in this order, each to the result of the one before:
addresses, NVTX suffixes, step.  normalize(name, rules) applies the rules named in `rules` (a set of
"addr", "step", "nvtx"; default all)."""
import re

ALL = frozenset(("addr", "step", "nvtx"))
_ADDR = re.compile(r" at 0x[0-9A-Fa-f]+(?![0-9A-Za-z_])")
_STEP = re.compile(r"ProfilerStep#[0-9]+")
_NVTX = re.compile(r", (?:seq|op_id) = [0-9]+(?=,|\Z)")
_INPUT_IDS = re.compile(r", input_op_ids = .*\Z", re.S)


def normalize(name, rules=ALL):
    if "addr" in rules:
        name = _ADDR.sub("", name)
    if "nvtx" in rules:
        name = _INPUT_IDS.sub("", _NVTX.sub("", name))
    if "step" in rules and _STEP.fullmatch(name):
        return "ProfilerStep"
    return name
