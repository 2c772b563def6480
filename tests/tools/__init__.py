"""Tool-call grammars (schemac.tools): envelopes, requests, walks, the runtime path."""
