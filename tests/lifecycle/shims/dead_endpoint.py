"""Broken: there is no /delete route (answers 404)."""
from shims import example

BROKEN = "POST /delete answers 404"


class Handler(example.Handler):
    routes = {path: route for path, route in example.Handler.routes.items() if route != "delete"}
