"""Placeholder module, filled in below."""

__all__: list[str] = []
