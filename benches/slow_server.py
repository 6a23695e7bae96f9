#!/usr/bin/env python3
"""A local HTTP pipeline for the run benchmark: answers every POST after DELAY seconds.
A POST to a path ending in /chat/completions gets an OpenAI-style chat completion (the
`chat` adapter's benchmark); any other POST gets the answer as the body.

    python3 benches/slow_server.py PORT_FILE [DELAY]

Binds 127.0.0.1 on a free port, writes the port to PORT_FILE, serves until killed. One
asyncio thread with HTTP/1.1 keep-alive, so the server adds almost nothing of its own to
the delay (a threaded server spends its time contending for the GIL).
"""
import asyncio
import json
import socket
import sys

DELAY = float(sys.argv[2]) if len(sys.argv) > 2 else 0.1
BODY = json.dumps({"requirements": []}).encode()
CHAT = json.dumps(
    {
        "id": "chatcmpl-bench",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": BODY.decode()},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 900, "completion_tokens": 40, "total_tokens": 940},
    }
).encode()


def response(body):
    return (
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
        + str(len(body)).encode()
        + b"\r\n\r\n"
        + body
    )


RESPONSE = response(BODY)
CHAT_RESPONSE = response(CHAT)


async def handle(reader, writer):
    sock = writer.get_extra_info("socket")
    if sock is not None:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n"):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":", 1)[1])
            await reader.readexactly(length)
            await asyncio.sleep(DELAY)
            chat = head.split(b" ", 2)[1].endswith(b"/chat/completions")
            writer.write(CHAT_RESPONSE if chat else RESPONSE)
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        writer.close()


async def main():
    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    with open(sys.argv[1], "w") as f:
        f.write(str(server.sockets[0].getsockname()[1]))
    async with server:
        await server.serve_forever()


asyncio.run(main())
