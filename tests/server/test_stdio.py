"""The stdio pipes read and written on the event loop (worlddb.server.stdio): lines split as the
SDK's reader splits them, whatever the chunks they arrive in, and `worlddb serve` answering a
client over real pipes through them."""

from __future__ import annotations

import asyncio
import json
import sys

from worlddb.server.stdio import CHUNK, Lines


async def lines_of(*chunks: bytes) -> list[str]:
    reader = asyncio.StreamReader()
    for chunk in chunks:
        reader.feed_data(chunk)
    reader.feed_eof()
    return [line async for line in Lines(reader)]


async def test_lines_are_split_at_newlines_whatever_the_chunks():
    long = "x" * (3 * CHUNK)
    assert await lines_of(b'{"a": 1}\n{"b"', b': 2}\r\n', long.encode() + b"\n", b"last") == [
        '{"a": 1}\n', '{"b": 2}\r\n', long + "\n", "last"]
    assert await lines_of() == []
    # undecodable bytes are replaced, as the SDK's reader replaces them
    assert await lines_of(b"caf\xe9\n") == ["caf\ufffd\n"]


async def test_a_served_process_answers_over_its_pipes(tmp_path):
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "worlddb.cli", "serve", "--db", str(tmp_path / "pipes.db"), "--embedder", "hash",
        "--default-user", "u", "--consolidate-every", "0", "--audit-log", "off",
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL, limit=2**20)

    async def send(message: dict, *, split: bool = False) -> None:
        data = (json.dumps(message) + "\n").encode()
        if split:  # a message that arrives in two pieces is still one line
            process.stdin.write(data[:10])
            await process.stdin.drain()
            await asyncio.sleep(0.05)
            data = data[10:]
        process.stdin.write(data)
        await process.stdin.drain()

    async def answer(number: int) -> dict:
        while True:
            message = json.loads(await asyncio.wait_for(process.stdout.readline(), 60))
            if message.get("id") == number:
                return message

    try:
        await send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
            split=True)
        assert (await answer(1))["result"]["serverInfo"]["name"] == "worlddb"
        await send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        # its reading, holding it twice over, about fills a pipe
        text = "Ana painted the fence in Leeds. " + "It took all day. " * 1850
        await send({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                    "params": {"name": "memory_write", "arguments": {"text": text}}})
        written = (await answer(2))["result"]
        assert not written.get("isError") and written["structuredContent"]["id"]
        await send({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                    "params": {"name": "memory_read", "arguments": {"id": written["structuredContent"]["id"]}}})
        assert (await answer(3))["result"]["structuredContent"]["text"] == text
    finally:
        process.stdin.close()
        assert await asyncio.wait_for(process.wait(), 60) == 0
