"""The empty pattern names every key (ECMA-262 search: "" matches in every string), and lowering
writes it (`lower/support/key_names.EVERY_KEY`). jsonschema 4.x joins `patternProperties` into one
regex for `additionalProperties` and skips the join when it is empty, so beside
`additionalProperties` it ignores the empty pattern: an oracle trap found in attack round 14,
where a differential fuzzer reported false unsoundness. The final validator and the grammar
follow the specification."""
from __future__ import annotations

import jsonschema

import schemac
from schemac.validate.final import FinalValidator
from testkit.grammar_harness import accepts

SCHEMA = {"patternProperties": {"": {"type": "integer"}}, "additionalProperties": False}


def test_jsonschema_ignores_the_empty_pattern_beside_additional_properties() -> None:
    """Pins the oracle's bug: when jsonschema fixes it this fails, and differential tests can
    drop their guard against it."""
    assert not jsonschema.Draft202012Validator(SCHEMA).is_valid({"x": 1})


def test_final_validator_and_grammar_take_the_empty_pattern() -> None:
    final = FinalValidator(SCHEMA)
    assert final.is_valid({"x": 1}) and final.is_valid({}) and not final.is_valid({"x": "s"})
    grammar = schemac.compile(SCHEMA, use_cache=False).grammar
    assert accepts(grammar, '{"x": 1}') and not accepts(grammar, '{"x": "s"}')
