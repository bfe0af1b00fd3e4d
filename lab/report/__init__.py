"""Reports rendered from a result set's rows."""
