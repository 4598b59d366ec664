import pytest


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A fresh cache folder for the test (``SYNCATTN_CACHE``)."""
    d = tmp_path / "cache"
    monkeypatch.setenv("SYNCATTN_CACHE", str(d))
    return d
