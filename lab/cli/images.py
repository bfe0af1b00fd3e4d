"""``memlab images``: build the lab's container images without a registry, and list them.

Exit codes: 0 done, 2 an image could not be built or no engine answers.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from lab.report.inert import inert
from lab.runtime import images as lab_images
from lab.runtime.dockercli import DockerError, engine

err = Console(stderr=True, highlight=False, soft_wrap=True, emoji=False)


def _engine_or_exit() -> None:
    ok, why = engine()
    if not ok:
        err.print(f"[bold red]memlab:[/] {inert(why)}\n  fix: start an engine (.ci/docker-up does it on Debian)")
        sys.exit(2)


@click.group("images")
def images() -> None:
    """Build (missing) and list the lab's images: base, base-bullseye, postgres, redis, redis-stack, lab,
    sut-<driver> (a folder of images/ holding a driver.py, built by the lab's recipe, or its own Dockerfile)."""


@images.command("build")
@click.argument("names", nargs=-1)
@click.option("--ca-cert", "ca_certs", multiple=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="A CA certificate to trust inside SUT images (repeatable). Default: the host's extra CAs "
                   f"({', '.join(str(d) for d in lab_images.HOST_CA_DIRS)}).")
@click.option("--base-from", default=None, metavar="IMAGE",
              help="Build the base FROM this registry image (e.g. debian:bookworm-slim) instead of bootstrapping "
                   "(the bookworm base; base-bullseye is always bootstrapped).")
@click.option("--force", is_flag=True, help="Rebuild the named images even if present.")
def build_cmd(names: tuple[str, ...], ca_certs: tuple[Path, ...], base_from: str | None, force: bool) -> None:
    """Build the named images that are missing (all when none named); print each build's time."""
    _engine_or_exit()
    started = time.monotonic()
    try:
        records = lab_images.build(list(names) or None, list(ca_certs) or None, force=force, base_from=base_from,
                                   progress=lambda line: err.print(inert(line, markup=False), markup=False))
    except (lab_images.ImageBuildError, DockerError) as exc:
        err.print(f"[bold red]memlab:[/] {inert(exc, lines=True)}")
        sys.exit(2)
    for rec in records:
        how = f"built in {rec.seconds:.1f} s" if rec.built else "present"
        click.echo(f"{rec.name:<16} {rec.tag:<40} {rec.id[:19]}  {how}")
    click.echo(f"images: {time.monotonic() - started:.1f} s")


@images.command("list")
def list_cmd() -> None:
    """The lab's images here, with their labelled package versions."""
    _engine_or_exit()
    table = Table(header_style="bold")
    columns = ("name", "tag", "id", "created", "size", "versions", "build_seconds")
    for col in columns:
        table.add_column(col)
    for row in lab_images.listing():
        table.add_row(*(inert(row[c]) for c in columns))
    Console(width=200 if not sys.stdout.isatty() else None).print(table)
