"""Make docs/report.png, the README's picture: the bundled sample's report in headless Chromium.

    .venv/bin/python docs/screenshot.py          # needs the 'test' extra (playwright) and Debian's chromium
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from PIL import Image
from playwright.sync_api import sync_playwright

from ir_measures_graded.sample import data_path

ROOT = Path(__file__).resolve().parents[1]
COMMAND = ["report", "qrels.txt", "strong.run", "weak.run", "random.run", "-m", "muMAP", "nDCNG@10", "nDCG@10",
           "GAP", "--baseline", "weak", "--title", "The bundled sample: three runs against weak"]


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        for name in ("qrels.txt", "strong.run", "weak.run", "random.run"):  # the names the page shows
            shutil.copy(data_path("graded_sample") / name, folder)
        page_path = Path(folder) / "report.html"
        script = Path(sys.executable).parent / "ir-measures-graded"
        subprocess.run([str(script), *COMMAND, "--html", "report.html"], cwd=folder, check=True,
                       stdout=subprocess.DEVNULL)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium",
                                                 args=["--headless", "--no-sandbox", "--disable-gpu"])
            page = browser.new_page(viewport={"width": 1280, "height": 900}, device_scale_factor=1)
            page.goto(page_path.as_uri())
            shot = Path(folder) / "full.png"
            page.screenshot(path=str(shot), full_page=True)
            browser.close()
        # 256 colours keep the file small; the page has few colours
        Image.open(shot).convert("RGB").quantize(256).save(ROOT / "docs" / "report.png", optimize=True)
    print(f"wrote {os.path.relpath(ROOT / 'docs' / 'report.png')}")


if __name__ == "__main__":
    main()
