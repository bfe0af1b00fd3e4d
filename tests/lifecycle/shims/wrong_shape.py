"""Broken: /query serves bare strings instead of {"text": ...} objects."""
from shims import example

BROKEN = 'query answers {"memories": ["..."]}, not [{"text": "..."}]'


class Handler(example.Handler):
    def on_query(self, body, store):
        return {"memories": [m["text"] for m in store.query(example.scope_of(body), body.get("prompt", ""))]}
