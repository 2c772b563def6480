"""The tool-call envelopes schemac can constrain, by tool-parser name.

Adding a format is one module with NAME, OPENER, check, rules and parse (see
`schemac.tools.model.Envelope`) and one line here.
"""
from __future__ import annotations

from schemac.tools import dsml, hermes
from schemac.tools.model import Envelope

ENVELOPES: dict[str, Envelope] = {
    hermes.NAME: hermes,
    dsml.NAME: dsml,
}
