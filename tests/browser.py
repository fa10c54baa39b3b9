"""Headless Chromium (Debian's package) driven by Selenium through Debian's chromedriver, for
the tests that open a page in a real browser; they are skipped when either is missing
(``.ci/run`` installs both when it can)."""

from __future__ import annotations

import shutil

import pytest

CHROMIUM = next((shutil.which(b) for b in ("chromium", "chromium-browser") if shutil.which(b)),
                None)
DRIVER = shutil.which("chromedriver")
#: The flags of a quiet headless start: no first-run work, no background connections (they
#: would be refused by a closed network, and a page must not need them).
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1400,1200")


def chromium_or_skip(profile_dir):
    """A Selenium driver of headless Chromium with a fresh profile in ``profile_dir`` and its
    browser and performance logs on; skips the test when Chromium or its driver is missing."""
    webdriver = pytest.importorskip("selenium.webdriver")
    if CHROMIUM is None or DRIVER is None:
        pytest.skip("needs headless Chromium and chromedriver "
                    "(apt-get install chromium chromium-driver)")
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in (*FLAGS, f"--user-data-dir={profile_dir}"):
        opts.add_argument(flag)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    return webdriver.Chrome(service=Service(DRIVER), options=opts)
