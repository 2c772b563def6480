"""Lowering passes (schemac.lower): each pass's golden fixtures and exactness, stated orders, rewrite growth."""
