"""The verify tests use a private Coq cache for the session (``SYNCATTN_COQ_CACHE``):
no test writes to the user's cache, and each Coq file compiles at most once per session."""

import pytest


@pytest.fixture(scope="session", autouse=True)
def _private_coq_cache(tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SYNCATTN_COQ_CACHE", str(tmp_path_factory.mktemp("coq-cache")))
        yield
