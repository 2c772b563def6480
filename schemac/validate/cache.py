"""One final validator per artifact key, least recently used first out: building a validator
compiles the schema's checks once, and the runtime and the client check many answers against
the same artifact."""
from __future__ import annotations

from collections import OrderedDict
from typing import Any

_VALIDATORS: "OrderedDict[str, Any]" = OrderedDict()
_MAX_VALIDATORS = 64


def validator_for(key: str, schema: Any) -> Any:
    """A cached FinalValidator per artifact key."""
    from schemac.validate.final import FinalValidator

    found = _VALIDATORS.get(key)
    if found is None:
        found = _VALIDATORS[key] = FinalValidator(schema)
        while len(_VALIDATORS) > _MAX_VALIDATORS:
            _VALIDATORS.popitem(last=False)
    else:
        _VALIDATORS.move_to_end(key)
    return found
