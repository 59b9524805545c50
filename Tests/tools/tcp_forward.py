#!/usr/bin/env python3
"""Forwards TCP connections from 127.0.0.1:LISTEN to 127.0.0.1:TARGET until killed.

The storage-outage test (REL-3) puts it between the server and the S3 endpoint: killing it makes the bucket
unreachable (connections refused), starting it again on the same port brings the bucket back.
Usage: tcp_forward.py LISTEN_PORT TARGET_PORT
"""
import asyncio
import sys


async def pipe(reader, writer):
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        writer.close()


async def main(listen, target):
    async def handle(client_reader, client_writer):
        try:
            server_reader, server_writer = await asyncio.open_connection("127.0.0.1", target)
        except OSError:
            client_writer.close()
            return
        await asyncio.gather(pipe(client_reader, server_writer), pipe(server_reader, client_writer))

    server = await asyncio.start_server(handle, "127.0.0.1", listen, reuse_address=True)
    print("ready", flush=True)
    async with server:
        await server.serve_forever()


asyncio.run(main(int(sys.argv[1]), int(sys.argv[2])))
