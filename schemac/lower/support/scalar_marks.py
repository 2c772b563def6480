"""The scalar markers (`marks.SCALAR_MARKS`) where no Lark writer reads them.

A lowered node may carry `NOT_PATTERN`, `NOT_MULTIPLE` or (on objects) `WITNESS`, which only
the Lark emit backend writes. Two other readers meet them, and neither may ignore them:

* the final validator, run on lowered nodes by passes and by the writer (enumerations, value
  domains, listed values): like any validator it skips unknown keywords, so `standard` rewrites
  each marker into standard keywords of the same meaning, `{"not": {"type": "string", "anyOf":
  [{"pattern": p}, ...]}}`, which it then judges with the one ECMA-262 semantics (and exact
  decimal `multipleOf`);
* a user's schema: there an `x-schemac-*` key is an unknown keyword, an annotation, so
  `stripped` drops it before lowering. The passes keep markers on the nodes they generate
  (`prune.KEPT`), so one written by a user must never reach them.

And one place must refuse them: a `%json` embedding (`marks.carries`), where llguidance would skip
the key as silently as the validator does.
"""
from __future__ import annotations

import copy
import hashlib
import threading
from collections import OrderedDict
from typing import Any, Callable

from schemac.lower.support.marks import NOT_MULTIPLE, NOT_PATTERN, SCALAR_MARKS, WITNESS
from schemac.schema import Schema, rebuilt

#: marker -> (the type it constrains, the keyword its members negate)
_MEANING: dict[str, tuple[str, str]] = {NOT_PATTERN: ("string", "pattern"), NOT_MULTIPLE: ("number", "multipleOf")}


def _rewrite(node: Schema, own: Callable[[dict[str, Any]], Schema]) -> Schema:
    """`node` with `own` applied to every schema object holding a marker; the very same object
    where none does (most schemas: nothing is copied)."""
    return rebuilt(node, lambda _, done: own(done) if SCALAR_MARKS & done.keys() else done)


def _as_standard(node: dict[str, Any]) -> Schema:
    extra = []
    for mark, (kind, keyword) in _MEANING.items():
        if node.get(mark):
            extra.append({"not": {"type": kind, "anyOf": [{keyword: x} for x in node[mark]]}})
    for w in node.get(WITNESS, ()):
        extra.append(_witness_standard(w, standard(w["value"])))
    rest = {k: v for k, v in node.items() if k not in SCALAR_MARKS}
    if extra:
        rest["allOf"] = [*rest.get("allOf", []), *extra]
    return rest


def _witness_standard(witness: dict[str, Any], value: Schema) -> Schema:
    """"Some entry of the key class holds a value in `value`" as standard keywords: not every
    entry of the class holds one outside it (non-objects pass, as for any object keyword)."""
    if "pattern" in witness:
        every: dict[str, Any] = {"type": "object", "patternProperties": {witness["pattern"]: {"not": value}}}
    else:
        cls = witness["other"]
        every = {"type": "object", "properties": {k: True for k in cls["keys"]},
                 "patternProperties": {p: True for p in cls["patterns"]}, "additionalProperties": {"not": value}}
    return {"not": every}


def standard(schema: Schema) -> Schema:
    """`schema` (lowered, `$defs` included) with every scalar marker replaced by standard
    keywords of the same meaning, for the final validator."""
    return _rewrite(schema, _as_standard)


def stripped(schema: Schema) -> Schema:
    """A user's `schema` without scalar marker keys (annotations there, as any unknown keyword)."""
    return _rewrite(schema, lambda node: {k: v for k, v in node.items() if k not in SCALAR_MARKS})


#: lowered validators by the SHA-256 of their schema's `repr`, least recently used first out: the
#: passes and the writer ask for one per listed node and value domain, mostly for the same few
#: schemas (MaskBench's slowest 2.5 %: 914 asked for, 71 distinct)
_VALIDATORS: "OrderedDict[str, Any]" = OrderedDict()
_MAX_VALIDATORS = 256
_LOCK = threading.Lock()


def lowered_validator(schema: Schema) -> Any:
    """A `FinalValidator` for a lowered schema: it honours the scalar markers.

    Cached by content: a validator is a function of its schema's value alone, so one built for
    an equal schema gives every verdict a fresh one would. The key is the `repr`, which keeps
    apart what equal Python values would merge (1, 1.0 and True) and what JSON text would (a
    list and a tuple), and member order; an object whose repr shows its id only misses the cache. The validator holds
    a copy of the schema, so no later edit of the caller's objects reaches a cached one."""
    from schemac.validate.final import FinalValidator

    key = hashlib.sha256(repr(schema).encode("utf-8", "surrogatepass")).hexdigest()
    with _LOCK:
        found = _VALIDATORS.get(key)
        if found is not None:
            _VALIDATORS.move_to_end(key)
            return found
    found = FinalValidator(copy.deepcopy(standard(schema)))  # its own copy: a caller's later edit is not its
    with _LOCK:
        _VALIDATORS[key] = found
        while len(_VALIDATORS) > _MAX_VALIDATORS:
            _VALIDATORS.popitem(last=False)
    return found


#: verdicts per lowered validator (by its identity; the validator is kept beside them): value `repr` -> valid
_VERDICTS: "OrderedDict[int, tuple[Any, dict[str, bool]]]" = OrderedDict()
_MAX_VERDICTS = 4096  # per validator; past it, values are judged without being remembered


def lowered_judge(schema: Schema) -> Callable[[Any], bool]:
    """`lowered_validator(schema).is_valid`, remembering each value's verdict: value domains are
    checked against the same nodes again and again (a oneOf's branches, pair by pair: on
    MaskBench's slowest 2.5 %, 4,032 checks of 789 distinct node-value pairs). A verdict is a
    function of the schema and the value alone, and only such verdicts are remembered
    (`FinalValidator.verdict`); the value's `repr` keeps apart what equality would merge (1,
    1.0 and True)."""
    validator = lowered_validator(schema)
    with _LOCK:
        entry = _VERDICTS.get(id(validator))
        if entry is None or entry[0] is not validator:
            entry = _VERDICTS[id(validator)] = (validator, {})
            while len(_VERDICTS) > _MAX_VALIDATORS:
                _VERDICTS.popitem(last=False)
        else:
            _VERDICTS.move_to_end(id(validator))
    verdicts = entry[1]

    def judge(value: Any) -> bool:
        key = repr(value)
        found = verdicts.get(key)
        if found is None:
            found = validator.verdict(value)
            if found is None:  # no verdict (the recursion limit depends on the stack): invalid, not remembered
                return False
            if len(verdicts) < _MAX_VERDICTS:
                verdicts[key] = found
        return found

    return judge
