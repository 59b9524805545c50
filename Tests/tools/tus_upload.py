#!/usr/bin/env python3
"""Uploads one file with tuspy, the real tus client, remembering its upload URL in STORE so that a run
killed halfway resumes where the server stopped: `tus_upload.py SERVER TOKEN TARGET FILE STORE [CHUNK_BYTES]`, TARGET an
event's id or `library`. Prints the id of the photo (or library asset) the upload became."""
import hashlib, sys
from tusclient import client
from tusclient.storage.filestorage import FileStorage

server, token, target, path, store = sys.argv[1:6]
chunk = int(sys.argv[6]) if len(sys.argv) > 6 else 256 * 1024
# The file's SHA-256 as the idempotency key, as the CLI and the web app send it: a run killed before it remembered
# its upload starts a new one, which replaces the old (and the shot it held).
key = hashlib.sha256(open(path, "rb").read()).hexdigest()
tus = client.TusClient(server + "/api/v1/uploads", headers={"Authorization": "Bearer " + token})
uploader = tus.uploader(path, chunk_size=chunk, metadata={"target": target if target == "library" else "event:" + target, "source": "library", "filename": path.split("/")[-1],
                                                     "idempotencyKey": key},
                        store_url=True, url_storage=FileStorage(store), upload_checksum=True)
uploader.upload()
if uploader.request is not None:
    print(uploader.request.response_headers.get("disposable-media-id", ""))
else:  # complete already (a run killed after its last PATCH): the server says which photo it became
    import urllib.request
    head = urllib.request.Request(uploader.url, method="HEAD", headers={"Authorization": "Bearer " + token, "Tus-Resumable": "1.0.0"})
    print(urllib.request.urlopen(head).headers.get("Disposable-Media-Id", ""))
