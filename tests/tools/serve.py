#!/usr/bin/env python3
"""serve.py DIR: serves DIR over HTTP on 127.0.0.1, on a free port that it
prints on its first line, until killed (for the viewer test)."""
import functools, http.server, sys

class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *a):
        pass

srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=sys.argv[1]))
print(srv.server_address[1], flush=True)
srv.serve_forever()
