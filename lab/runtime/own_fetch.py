"""What a row's own Dockerfile installs, fetched by the lab's own steps before the build, so that the
team's steps build with no network at all (``docker build --network none``): a ``RUN`` step of an
untrusted Dockerfile reaches neither the host's loopback nor anything else.

The driver folder declares what it needs by three files, each optional; what each gives the build
context, under ``fetched/``:

- ``debian-packages.txt`` (one Debian package name a line, ``#`` comments) -> ``fetched/debs/``: the
  packages and every dependency the lab's base lacks, as ``.deb`` files, downloaded by apt in a
  container of the lab's base (``apt-get install --download-only``: no package's script runs).
  Install them with ``RUN dpkg -i fetched/debs/*.deb`` (after ``COPY fetched/debs/ fetched/debs/``).
- ``requirements.txt``, every line ``name==version --hash=sha256:...`` -> ``fetched/wheels/``:
  the wheels, downloaded by this host's pip (``--only-binary :all: --require-hashes --no-deps``).
  Install with ``pip install --no-index --find-links fetched/wheels -r requirements.txt``.
- ``package-lock.json`` beside ``package.json`` -> ``fetched/npm/node_modules/``: ``npm ci
  --ignore-scripts --omit=dev`` by this host's npm, in a folder holding those two files alone; every
  package from the npm registry (no ``file:``, ``link:``, git or URL dependency, no workspace).
  Copy it in with ``COPY fetched/npm/node_modules/ ./node_modules/``.

Each file is checked before anything is fetched (file, line, what is wrong, the fix): an option
line in ``requirements.txt`` (``--index-url http://127.0.0.1/``) or a lock entry resolved from
another host would make the lab's own step reach where the team chose.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
import uuid
from pathlib import Path

from lab.runtime.dockercli import DockerError, docker
from lab.runtime.image_build import ImageBuildError, Progress, download_wheels

DEBIAN_FILE, PIP_FILE = "debian-packages.txt", "requirements.txt"
NPM_LOCK, NPM_MANIFEST = "package-lock.json", "package.json"
NPM_REGISTRY = "https://registry.npmjs.org/"
MAX_FILE = 16 * 1024 * 1024  # a declaration file read, at most
MAX_PACKAGES = 500
STEP_SECONDS = 900  # one fetch step, at most
_DEB_NAME = re.compile(r"[a-z0-9][a-z0-9+.-]{1,99}")
_PINNED = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*(\[[A-Za-z0-9_,.-]+\])?==[0-9A-Za-z.!+_-]+"
                     r"(\s+--hash=sha256:[0-9a-f]{64})+")
_NOT_REGISTRY_SPEC = re.compile(r"^(file:|link:|git|https?:|github:|gitlab:|bitbucket:|gist:|[^@]*/)")


def declared(driver_dir: Path) -> list[str]:
    """The declaration files the driver folder holds (what the build will be given under ``fetched/``)."""
    return [name for name in (DEBIAN_FILE, PIP_FILE, NPM_LOCK) if _content(driver_dir / name) is not None]


def fetch(driver_dir: Path, ctx: Path, base_tag: str, progress: Progress) -> None:
    """Check every declaration file of ``driver_dir``, then fetch what they name into ``ctx/fetched``."""
    out = ctx / "fetched"
    out.mkdir()
    debs, pins, npm = debian_packages(driver_dir), pinned_requirements(driver_dir), npm_lock(driver_dir)
    if debs:
        _fetch_debs(debs, base_tag, out / "debs", progress)
    if pins:
        (out / "wheels").mkdir()
        download_wheels(driver_dir / PIP_FILE, out / "wheels", progress)
    if npm:
        _fetch_npm(driver_dir, out / "npm", progress)


def _content(path: Path) -> str | None:
    """A regular file's text (never through a link, at most MAX_FILE bytes), or None when there is none."""
    if path.is_symlink():
        raise _refuse(path, None, "a link; the lab reads only a regular file here",
                      "put the file itself in the driver folder")
    if not path.is_file():
        return None
    if path.stat().st_size > MAX_FILE:
        raise _refuse(path, None, f"over {MAX_FILE // (1024 * 1024)} MiB", "declare what the image needs, no more")
    return path.read_text(encoding="utf-8", errors="replace")


def _refuse(path: Path, line: int | None, what: str, fix: str) -> ImageBuildError:
    """The error naming the file (and line), what is wrong and how to fix it."""
    return ImageBuildError(f"{path}{f':{line}' if line else ''}: {what}\n  fix: {fix}")


def debian_packages(driver_dir: Path) -> list[str]:
    """The Debian package names ``debian-packages.txt`` lists (checked: names only, no versions or options)."""
    path = driver_dir / DEBIAN_FILE
    names = []
    for number, line in enumerate((_content(path) or "").splitlines(), 1):
        name = line.split("#", 1)[0].strip()
        if not name:
            continue
        if not _DEB_NAME.fullmatch(name):
            raise _refuse(path, number, f"{name[:80]!r} is not a Debian package name",
                          "one package name a line (lower case, e.g. nodejs); the base's suite gives the version")
        names.append(name)
    if len(names) > MAX_PACKAGES:
        raise _refuse(path, None, f"{len(names)} packages, over {MAX_PACKAGES}", "list what the image needs, no more")
    return names


def pinned_requirements(driver_dir: Path) -> int:
    """How many requirements ``requirements.txt`` pins; every one must be ``name==version --hash=sha256:...``
    (continuation lines joined), and no option line (an index, a link, an editable) is taken."""
    path = driver_dir / PIP_FILE
    text = (_content(path) or "").replace("\\\n", " ")
    count = 0
    for number, line in enumerate(text.splitlines(), 1):
        requirement = line.split(" #", 1)[0].strip()
        if not requirement or requirement.startswith("#"):
            continue
        if not _PINNED.fullmatch(requirement):
            raise _refuse(path, number, f"{requirement[:80]!r} is not one pinned requirement with its hash",
                          "write each as name==version --hash=sha256:<digest> (pip-compile --generate-hashes); "
                          "no option lines: the lab downloads from the host's package index")
        count += 1
    return count


def npm_lock(driver_dir: Path) -> bool:
    """Whether the folder pins npm packages; checks that each comes from the npm registry and nothing else."""
    lock_path, manifest_path = driver_dir / NPM_LOCK, driver_dir / NPM_MANIFEST
    lock_text = _content(lock_path)
    if lock_text is None:
        return False
    manifest_text = _content(manifest_path)
    if manifest_text is None:
        raise _refuse(manifest_path, None, "missing beside package-lock.json", "commit package.json with its lock")
    manifest, lock = _json(manifest_path, manifest_text), _json(lock_path, lock_text)
    if "workspaces" in manifest:
        raise _refuse(manifest_path, None, "declares workspaces", "install one package folder; no workspaces")
    for field in ("dependencies", "optionalDependencies", "peerDependencies", "devDependencies"):
        for name, spec in (manifest.get(field) or {}).items():
            if not isinstance(spec, str) or (_NOT_REGISTRY_SPEC.match(spec) and not spec.startswith("npm:")):
                raise _refuse(manifest_path, None,
                              f"{field}.{name} is {str(spec)[:80]!r}, not a package of the registry",
                              "depend on a version of the npm registry (e.g. \"1.2.3\")")
    if lock.get("lockfileVersion") not in (2, 3) or not isinstance(lock.get("packages"), dict):
        raise _refuse(lock_path, None, "not an npm lock of version 2 or 3 (a 'packages' map)",
                      "write it with npm 7 or later (npm install --package-lock-only)")
    for key, entry in lock["packages"].items():
        _check_lock_entry(lock_path, key, entry)
    return True


def _check_lock_entry(path: Path, key: str, entry: object) -> None:
    """One lock entry: a folder under node_modules, no link, resolved (if said) from the registry."""
    if key == "":
        return
    if not isinstance(entry, dict) or not key.startswith("node_modules/") or ".." in key.split("/"):
        raise _refuse(path, None, f"entry {key[:80]!r} is not a package under node_modules",
                      "write the lock with npm from registry packages only")
    resolved = entry.get("resolved")
    if entry.get("link") or (resolved is not None and not str(resolved).startswith(NPM_REGISTRY)):
        raise _refuse(path, None, f"entry {key[:80]!r} comes from {str(resolved)[:80]!r}, not the npm registry",
                      f"depend on registry packages only ({NPM_REGISTRY})")


def _json(path: Path, text: str) -> dict:
    """A JSON object from ``text``; the error names the file and the line."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _refuse(path, exc.lineno, f"not JSON: {exc.msg}", "write it with npm") from None
    if not isinstance(data, dict):
        raise _refuse(path, None, "not a JSON object", "write it with npm")
    return data


def _fetch_debs(names: list[str], base_tag: str, dest: Path, progress: Progress) -> None:
    """apt's download of ``names`` and what they need beyond the base, in a container of the base."""
    progress(f"  fetching {len(names)} Debian package(s) with their dependencies")
    name = f"memlab-fetch-{uuid.uuid4().hex[:12]}"
    (dest / "partial").mkdir(parents=True)
    script = ('apt-get update -qq && apt-get install -y -qq --download-only --no-install-recommends '
              '-o APT::Sandbox::User=root -o Dir::Cache::archives=/out/ "$@"; rc=$?; '
              f'rm -rf /out/partial /out/lock; chown -R {os.getuid()}:{os.getgid()} /out; exit $rc')
    try:
        docker("run", "--rm", "--name", name, "--network", "host", "--user", "0:0", "-v", f"{dest}:/out",
               "--entrypoint", "sh", base_tag, "-c", script, "sh", *names, timeout=STEP_SECONDS)
    except DockerError as exc:
        docker("rm", "-f", name, check=False, timeout=60)  # one past its time is still running
        raise ImageBuildError(f"could not fetch the Debian packages {', '.join(names)}: {exc}") from None


def _fetch_npm(driver_dir: Path, dest: Path, progress: Progress) -> None:
    """``npm ci --ignore-scripts --omit=dev`` of the folder's lock, alone in a folder, into ``dest/node_modules``."""
    npm = shutil.which("npm")
    if npm is None:
        raise ImageBuildError(f"{driver_dir / NPM_LOCK}: the lab installs the locked npm packages with this host's "
                              "npm, which is not on PATH\n  fix: install it (apt-get install npm)")
    progress("  fetching the npm packages package-lock.json pins (npm ci --ignore-scripts)")
    dest.mkdir()
    with tempfile.TemporaryDirectory(prefix="memlab-npm-") as tmp:
        for name in (NPM_MANIFEST, NPM_LOCK):
            shutil.copyfile(driver_dir / name, Path(tmp) / name)
        env = {k: v for k, v in os.environ.items() if not k.lower().startswith("npm_config_")}
        try:
            done = subprocess.run([npm, "ci", "--ignore-scripts", "--omit=dev", "--no-audit", "--no-fund",
                                   "--cache", str(Path(tmp) / ".cache"), "--registry", NPM_REGISTRY],
                                  cwd=tmp, env=env, capture_output=True, text=True, timeout=STEP_SECONDS)
        except subprocess.TimeoutExpired:
            raise ImageBuildError(f"npm ci of {driver_dir / NPM_LOCK}: not done within {STEP_SECONDS} s") from None
        if done.returncode != 0:
            raise ImageBuildError(f"npm ci of {driver_dir / NPM_LOCK} failed (exit {done.returncode}):\n"
                                  f"{done.stderr[-3000:]}")
        modules = Path(tmp) / "node_modules"
        _check_links(modules)
        shutil.move(str(modules), dest / "node_modules")


def _check_links(root: Path) -> None:
    """Every link npm made under ``root`` points inside it (none to a host file the build would copy)."""
    top = root.resolve()
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(folder) / name
            if path.is_symlink() and not path.resolve().is_relative_to(top):
                raise ImageBuildError(f"npm made {path.relative_to(root)} a link out of node_modules: refused")
