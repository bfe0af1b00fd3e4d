"""``memlab list``: every profile, and whether it can run here on the runtime ``--runtime`` selects (or
why not). Every row name whole, at any terminal width (lab.cli.fit): a table where it fits, else each
SUT's rows under it, each reason wrapped under its row; or the rows as JSON (``--json``, JSON_KEYS).

Exit 0, or 2 when a profile is invalid (the others are still listed) or the runtime asked for cannot
run here. ``profiles_in`` reads a profile
folder for ``list`` and ``run`` alike, naming each invalid profile on stderr.
"""

from __future__ import annotations

from pathlib import Path

import click

from lab import RUNTIME_NAMES
from lab.cli.console import console, fail, reader_may_leave
from lab.cli.options import profiles_option
from lab.report.inert import inert


def profiles_in(directory: Path) -> tuple[list, list]:
    """The valid profiles of ``directory`` and its invalid ones (each printed with its fix); exit 2 when
    there is no such folder."""
    from lab.profile import scan_profiles
    if not directory.is_dir():
        fail(f"no profile folder at {directory}")
    profiles, errors = scan_profiles(directory)
    for err in errors:
        console.print(f"[bold red]invalid profile[/] {inert(err, lines=True)}")
    return profiles, errors


#: ``memlab list --json``: one object per row, in the listing's order (invalid profiles first).
JSON_KEYS = {
    "row": "the row's name (what --sut takes); an invalid profile's file stem",
    "sut": "the SUT's package ('' when none)",
    "version": "the SUT's version ('' when none)",
    "status": "runnable, not-runnable, unavailable or invalid (the profile)",
    "runtime": "the runtime the answer is for: docker or local",
    "reason": "why it cannot run, or why the profile is invalid (else null)",
    "image_missing": "a runnable row's image not built yet, and how to (else null)",
    "profile": "the profile's file",
}
_STATUS = {"runnable": ("runnable here", "green"), "not-runnable": ("not runnable", "red"),
           "unavailable": ("unavailable", "yellow"), "invalid": ("invalid profile", "red")}


@click.command("list", epilog="\b\n--json prints a list of objects, one per row, with the keys:\n"
               + "\n".join(f"  {k}: {v}" for k, v in JSON_KEYS.items()))
@profiles_option
@click.option("--runtime", "runtime_name", type=click.Choice(RUNTIME_NAMES), default="auto", show_default=True,
              help="Say whether each row can run on this runtime (as `memlab run --runtime` selects it).")
@click.option("--json", "as_json", is_flag=True, help="Print the rows as JSON (the keys below), not as text.")
def list_cmd(profiles_dir: Path, runtime_name: str, as_json: bool) -> None:
    """Every profile, and whether it can run here (or why not). Exit 0, or 2 when a profile is invalid.

    Every row name is printed whole, at any width: a table where it fits, else each SUT's rows under
    it; a name too long for its line has a line of its own, a reason is wrapped under its row.
    """
    from lab.runtime import RuntimeUnavailable, get_runtime

    try:
        runtime = get_runtime(runtime_name)
    except RuntimeUnavailable as exc:
        fail(str(exc))
    profiles, errors = profiles_in(profiles_dir)
    entries = _entries(runtime, profiles, errors, auto=runtime_name == "auto")
    if as_json:
        import json

        with reader_may_leave():
            click.echo(json.dumps(entries, indent=2))
    else:
        _print(entries)
    if errors:
        fail(f"{len(errors)} invalid profile(s) in {profiles_dir} (each named above with its fix)")


def _entries(runtime, profiles: list, errors: list, auto: bool = False) -> list[dict]:
    """The listing's rows, as ``--json`` prints them (JSON_KEYS); ``auto``: each row answered for the
    runtime ``memlab run --sut ROW`` would choose (lab.runtime.choice: the lab's own pure-Python rows
    locally)."""
    from lab.profile import file_row
    from lab.runtime import own_image
    from lab.runtime import runnable as runnable_here
    from lab.runtime.choice import own_and_pure
    from lab.runtime.local import LocalRuntime

    local, chosen = LocalRuntime(), runtime
    entries = []
    for err in errors:
        entries.append({"row": file_row(err.path), "sut": "", "version": "", "status": "invalid",
                        "runtime": runtime.name, "reason": f"{err.field}: {err.message}", "image_missing": None,
                        "profile": str(err.path)})
    for prof in profiles:
        missing, runtime = None, chosen
        if prof.status == "unavailable":
            status, reason = "unavailable", prof.unavailable_reason
        else:
            if auto and own_and_pure(prof) and runnable_here(local, prof)[0]:
                runtime = local
            ok, why = runnable_here(runtime, prof)
            status, reason = ("runnable", None) if ok else ("not-runnable", why)
            if ok and prof.image and runtime.name == "docker":
                missing = own_image.missing(prof)
        entries.append({"row": prof.row, "sut": str(prof.sut.get("package") or ""),
                        "version": str(prof.sut.get("version") or ""), "status": status, "runtime": runtime.name,
                        "reason": None if reason is None else str(reason), "image_missing": missing or None,
                        "profile": str(prof.path)})
    return entries


def _print(entries: list[dict]) -> None:
    """The rows as text, fitting the terminal: a table when it fits, else each SUT's rows under it."""
    from rich.text import Text

    from lab.cli.fit import Row, lay_out, table_fits
    from lab.report.stdout import stdout_console

    def t(text: str, style: str = "") -> tuple[str, str]:
        return inert(text, markup=False), style

    b = "bold underline"
    table = [Row(t("row", b), (t("SUT", b), t("version", b), t("status", b)))]
    grouped = [Row(t("row", b), (t("status", b),), heading=(t("SUT", b), t(" "), t("version", b)))]
    shared: tuple | None = None
    for entry in entries:
        word, style = _STATUS[entry["status"]]
        status = t(f"{word} ({entry['runtime']})" if entry["status"] == "runnable" else word, style)
        details = tuple((t(entry[key]),) for key in ("reason", "image_missing") if entry[key])
        table.append(Row(t(entry["row"]), (t(entry["sut"]), t(entry["version"]), status), details))
        sut = (entry["sut"], entry["version"]) if entry["status"] != "invalid" else ("invalid profiles",)
        heading = () if sut == shared else (t(" ".join(sut).strip() or "(no SUT named)", "bold"),)
        shared = sut
        grouped.append(Row(t(entry["row"]), (status,), details, heading))
    out = stdout_console()
    lines = lay_out(table, out.width) if table_fits(table, out.width) else lay_out(grouped, out.width, indent=2)
    for line in lines:
        out.print(Text.assemble(*line), soft_wrap=True)
