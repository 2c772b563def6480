"""One shared expansion budget per schema, counted in deterministic units.

Every lowering that generates branches, candidate evaluations or regex text reserves capacity here
*before* building the expansion, so a schema that would blow up is rejected early and never
approximated. Nested and sibling schemas draw on the same object. The compiler's work is counted
in `steps` (a walked node, a written rule, a search branch, a listed value checked, a native
llguidance call sized by its input before it runs), never in seconds, so a schema gets the same
verdict on any machine, under any load, in a cold or a warm process (`too-large`, cached like a
compile). A wall-clock guard (`deadline_s`, `compile-timeout`) stays only as a last resort for
servers: much looser than the step budget, and never cached.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from schemac.diagnostics import reject
from schemac.schema import SUBSCHEMA_KEYWORDS, child_pointer, iter_subschemas

#: Default limits (see docs/design.md): entries are generated anyOf branches, enum members and array
#: alternatives; evaluations are finite-domain candidates checked with the validator.
#: Steps are the deterministic work unit (see `Budget.step`): the default is calibrated so every
#: MaskBench schema the old 5 s deadline let compile on an idle machine still does (the heaviest
#: needs 801k; docs/budget.md): 7-10 µs of CPU a step on the 2-core development machine.
DEFAULT_LIMITS: dict[str, int] = {
    "entries": 256,
    "evaluations": 4096,
    "regex_chars": 262_144,
    "steps": 1_000_000,
}
#: bytes of input one step pays for in a native llguidance call (grammar text validated or probed)
NATIVE_BYTES_PER_STEP = 64


@dataclass(frozen=True)
class Limits:
    """Hard bounds that hold whatever the schema: size, depth, work steps and (last resort) time."""

    entries: int = DEFAULT_LIMITS["entries"]
    evaluations: int = DEFAULT_LIMITS["evaluations"]
    regex_chars: int = DEFAULT_LIMITS["regex_chars"]
    steps: int = DEFAULT_LIMITS["steps"]
    max_schema_bytes: int = 16 * 1024 * 1024
    max_depth: int = 256
    max_nodes: int = 200_000
    max_grammar_bytes: int = 8 * 1024 * 1024
    #: the last-resort wall-clock guard (`compile-timeout`, never cached): the step budget ends
    #: every compile long before it on an idle machine; it only stops a starved server thread.
    deadline_s: float = 300.0
    #: bounds on work the front end and llguidance do per schema (see `check_cost`): every stage
    #: walks each subschema (~150 µs each, all stages), llguidance's grammar check is quadratic in
    #: an object's property count and linear (~30 µs) in enum members, none of it interruptible.
    max_subschemas: int = 20_000
    max_property_pairs: int = 8_000_000
    max_enum_values: int = 50_000


@dataclass
class Budget:
    limits: Limits = field(default_factory=Limits)
    used: dict[str, int] = field(default_factory=lambda: {k: 0 for k in DEFAULT_LIMITS})
    started: float = field(default_factory=time.monotonic)

    def limit(self, kind: str) -> int:
        return int(getattr(self.limits, kind))

    def fits(self, kind: str, n: int) -> bool:
        """Whether `n` more units of `kind` would still be within its limit (nothing claimed)."""
        if kind not in self.used:
            raise KeyError(kind)
        return self.used[kind] + n <= self.limit(kind)

    def reserve(self, kind: str, n: int, pointer: str) -> None:
        """Claim `n` units of `kind` or raise `budget-exhausted`; nothing is claimed on failure."""
        fits = self.fits(kind, n)
        self.step(pointer)
        if not fits:
            raise reject(
                "budget-exhausted",
                pointer,
                f"the '{kind}' budget ({self.limit(kind)}) is exhausted: this expansion needs {n} "
                f"more with {self.used[kind]} already used",
                hint="simplify the construct at this pointer (bound it, or make branches disjoint)",
            )
        self.used[kind] += n

    def step(self, pointer: str, n: int = 1) -> None:
        """Count `n` steps of work; raise `too-large` past the step budget (deterministic), or
        `compile-timeout` past the wall-clock guard (a starved process; never a verdict)."""
        used = self.used["steps"] = self.used["steps"] + n
        if used > self.limits.steps:
            raise reject("too-large", pointer, f"compiling this schema takes more than its {self.limits.steps:,} "
                         "steps of work (nodes walked, rules written, values checked, native checks by size)",
                         hint="simplify the schema around this pointer (fewer branches under allOf/anyOf/oneOf, "
                              "fewer listed values), or raise Limits.steps")
        if time.monotonic() - self.started > self.limits.deadline_s:
            raise reject("compile-timeout", pointer, f"compilation ran past the {self.limits.deadline_s:g} s "
                         "wall-clock guard (the machine is overloaded; this is no verdict on the schema)",
                         hint="retry when the machine is less loaded, or raise Limits.deadline_s")

    def native(self, pointer: str, nbytes: int) -> None:
        """Pay for one uninterruptible llguidance call on `nbytes` of input before it runs."""
        self.step(pointer, 1 + nbytes // NATIVE_BYTES_PER_STEP)

    def exhausted(self) -> bool:
        """Whether the step budget is spent (for searches that stop with what they found)."""
        return self.used["steps"] >= self.limits.steps

    def report(self) -> dict[str, dict[str, int]]:
        return {k: {"used": v, "limit": self.limit(k)} for k, v in self.used.items()}


def check_cost(schema: object, limits: Limits) -> None:
    """Reject a schema whose size alone would take compilation past its budget.

    Steps are only counted between Python steps, so work that runs in one go (a front-end
    walk, llguidance's grammar check) must be bounded up front: subschema count, the sum over
    object schemas of `len(properties)` squared, and enum/const members. Iterative; stops at the
    first bound passed. Raises `too-large` at the node that passed it.
    """
    if _within_cost(schema, limits):
        return
    stack: list[tuple[object, str]] = [(schema, "")]
    subschemas = pairs = members = 0
    while stack:
        node, pointer = stack.pop()
        subschemas += 1
        if subschemas > limits.max_subschemas:
            raise reject("too-large", pointer, f"schema has more than {limits.max_subschemas:,} subschemas")
        if not isinstance(node, dict):
            continue
        props = node.get("properties")
        if isinstance(props, dict):
            pairs += len(props) ** 2
            if pairs > limits.max_property_pairs:
                raise reject(
                    "too-large", child_pointer(pointer, "properties"),
                    f"this object's {len(props):,} properties take the schema past its grammar size bound "
                    f"(the sum of squared property counts may be at most {limits.max_property_pairs:,})",
                    hint="split the object, or use patternProperties/additionalProperties for open key sets",
                )
        enum = node.get("enum")
        if isinstance(enum, list):
            members += len(enum)
            if members > limits.max_enum_values:
                raise reject(
                    "too-large", child_pointer(pointer, "enum"),
                    f"the schema's enums hold more than {limits.max_enum_values:,} values",
                )
        stack.extend((sub, child_pointer(pointer, *path)) for path, sub in iter_subschemas(node))


def within_cost_by_size(json_chars: int, limits: Limits) -> bool:
    """Whether a schema whose JSON text has `json_chars` characters passes `check_cost` for its
    size alone: n subschemas take at least 2n characters (`{}` each), n enum members 2n - 1
    (`0,0`) and n properties 6n - 1 (`"":{},"":{}`), so the totals cannot pass their bounds."""
    props = (json_chars + 1) // 6
    return ((json_chars + 1) // 2 <= min(limits.max_subschemas, limits.max_enum_values)
            and props * props <= limits.max_property_pairs)


def _within_cost(schema: object, limits: Limits) -> bool:
    """Whether `check_cost` passes: the same totals without building a pointer per subschema.

    The counts only grow, so they pass their bounds at the end exactly when `check_cost` would
    have stopped on the way; only then is the pointer-tracking walk run, for its error.
    """
    stack: list[object] = [schema]
    subschemas = pairs = members = 0
    shapes = SUBSCHEMA_KEYWORDS
    while stack:
        node = stack.pop()
        subschemas += 1
        if subschemas > limits.max_subschemas or pairs > limits.max_property_pairs \
                or members > limits.max_enum_values:
            return False
        if not isinstance(node, dict):
            continue
        for kw, value in node.items():
            shape = shapes.get(kw)
            if shape is None:
                if kw == "enum" and isinstance(value, list):
                    members += len(value)
            elif shape == "one":
                if isinstance(value, (dict, bool)):
                    stack.append(value)
            elif shape == "list":
                if isinstance(value, list):
                    stack.extend(sub for sub in value if isinstance(sub, (dict, bool)))
            elif isinstance(value, dict):
                if kw == "properties":
                    pairs += len(value) ** 2
                stack.extend(sub for sub in value.values() if isinstance(sub, (dict, bool)))
    return (subschemas <= limits.max_subschemas and pairs <= limits.max_property_pairs
            and members <= limits.max_enum_values)
