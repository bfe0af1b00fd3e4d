"""Where a row's driver comes from, checked: its folder (a name under images/, a ./path beside the
profile that never climbs out, or an absolute path) and what it must hold -- a driver.py, or the row's
own image's Dockerfile -- or an own image by tag, where the folder is optional. Each error is the
validator's ``fail``: its line and the fix."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from lab.profile import names
from lab.profile.model import IMAGES_DIR, Fail, OwnImage, driver_dir
from lab.profile.schema import Document


def own_image(doc: Document, path: Path, fail: Fail) -> OwnImage | None:
    """The driver folder and the row's own image: without ``image`` the folder holds a driver.py (the
    lab's recipe builds it); with ``image.dockerfile`` it holds that Dockerfile; with ``image.tag`` the
    image on the engine holds the driver, and a driver folder is optional."""
    if doc.image is None:
        _driver(doc.driver, "driver.py", path, fail)
        return None
    image = OwnImage(dockerfile=doc.image.dockerfile, tag=doc.image.tag)
    if image.dockerfile:
        _driver(doc.driver, image.dockerfile, path, fail, "image.dockerfile")
    elif doc.driver:
        _driver(doc.driver, None, path, fail)
    return image


def _driver(driver: str | None, needs: str | None, path: Path, fail: Fail, needs_field: str = "driver") -> None:
    """A folder under images/ by name, or ./path from the profile (never climbing out with ..), or an
    absolute path; it holds the file ``needs`` (driver.py, or the own image's Dockerfile)."""
    if not driver:
        fix = ("name the folder holding the Dockerfile (a folder under images/, or ./path from this profile)"
               if needs_field == "image.dockerfile" else "name a folder under images/ (or ./path from this profile)")
        raise fail("driver", "missing", fix)
    relative = not driver.startswith("/")
    if relative and not driver.startswith("."):
        problem = names.bad_name(driver)
        if problem or not (IMAGES_DIR / driver).resolve().is_relative_to(IMAGES_DIR.resolve()):
            raise fail("driver", f"{driver!r} is not a folder name under images/",
                       "name a folder of images/, or write ./path to a folder beside this profile")
    elif relative and ".." in PurePosixPath(driver).parts:
        raise fail("driver", "the path climbs out of the profile's folder with '..'",
                   "put the driver folder beside the profile (driver: ./my-driver) or give an absolute path")
    folder = driver_dir(driver, path)
    if not folder.is_dir():
        raise fail("driver", f"no folder {folder}", "name a folder under images/ (or ./path from this profile)")
    if needs == "driver.py" and not (folder / needs).is_file():
        raise fail("driver", f"no driver.py in {folder}",
                   "name a folder under images/ (or ./path from this profile) holding a driver.py, "
                   "or give the row its own image (image: {dockerfile: Dockerfile})")
    if needs and needs != "driver.py" and not (folder / needs).is_file():
        raise fail(needs_field, f"no file {needs} in the driver folder {folder}",
                   "put the image's Dockerfile in the driver folder and name it relative to it")
