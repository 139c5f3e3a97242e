"""Schemathesis auth for lfnlab: an admin API token, renewed every second.

The fuzzer may revoke the token it is given (DELETE /api/tokens/{id} with an id it read from
GET /api/tokens). A session cookie the fuzzer never sees (LFN_COOKIE, LFN_CSRF) mints a new one,
so such a revocation costs a second of 401s instead of the rest of the run.
"""

import json
import os
import urllib.request

import schemathesis


@schemathesis.auth(refresh_interval=1)
class AdminToken:
    def get(self, case, ctx):
        req = urllib.request.Request(
            os.environ["LFN_URL"] + "/api/tokens",
            data=json.dumps({"name": "schemathesis"}).encode(),
            method="POST",
            headers={
                "content-type": "application/json",
                "cookie": "lfn_session=" + os.environ["LFN_COOKIE"],
                "x-csrf-token": os.environ["LFN_CSRF"],
            },
        )
        with urllib.request.urlopen(req, timeout=10) as res:
            return json.load(res)["token"]

    def set(self, case, data, ctx):
        case.headers = case.headers or {}
        case.headers["Authorization"] = "Bearer " + data
