"""The proxy's upstream pool (`rein.proxy._pool`): keep-alive connections are reused, one the server
closed while idle is noticed and replaced, as httpx2's own pool does, and TLS upstreams work (a
certificate made for the test, on loopback)."""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import ipaddress
import ssl
from pathlib import Path

import httpx2
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from rein.proxy._pool import transport

REPLY = b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 2\r\n\r\nok"


class Upstream:
    """HTTP/1.1 on loopback that answers `ok` on keep-alive, or closes the connection after it answered
    when `close_after` is set (without saying so: as a server whose idle timeout passed)."""

    def __init__(self) -> None:
        self.connections = 0
        self.handlers: list[asyncio.Task[None]] = []
        self.close_after = False
        self.port = 0

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        task = asyncio.current_task()
        assert task is not None
        self.handlers.append(task)
        try:
            while await reader.readuntil(b"\r\n\r\n"):
                writer.write(REPLY)
                await writer.drain()
                if self.close_after:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        writer.close()
        with contextlib.suppress(ConnectionError):
            await writer.wait_closed()


async def requests(
    upstream: Upstream, count: int, tls: tuple[ssl.SSLContext, ssl.SSLContext] | None = None
) -> list[str]:
    """`count` GETs one after another through one client on the proxy's transport; their bodies. With
    `tls` (the server's context, the client's), over TLS."""
    server_tls, client_tls = tls if tls is not None else (None, None)
    listening = await asyncio.start_server(upstream.handle, "127.0.0.1", 0, ssl=server_tls)
    port = listening.sockets[0].getsockname()[1]
    limits = httpx2.Limits(max_connections=10, max_keepalive_connections=10)
    url = f"{'https' if tls else 'http'}://127.0.0.1:{port}/"
    texts: list[str] = []
    async with listening:
        async with httpx2.AsyncClient(transport=transport(limits, client_tls)) as client:
            for _ in range(count):
                texts.append((await client.get(url)).text)
                await asyncio.sleep(0.05)  # a close by the server reaches the client's socket meanwhile
        await asyncio.wait_for(asyncio.gather(*upstream.handlers), 5)  # the client closed its end
    return texts


def test_keep_alive_connections_are_reused() -> None:
    upstream = Upstream()
    assert asyncio.run(requests(upstream, 3)) == ["ok"] * 3
    assert upstream.connections == 1


def test_a_connection_the_server_closed_while_idle_is_replaced() -> None:
    upstream = Upstream()
    upstream.close_after = True
    assert asyncio.run(requests(upstream, 3)) == ["ok"] * 3
    assert upstream.connections == 3


def test_tls_upstreams_are_read_and_kept_alive(tmp_path: Path) -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False
        )
        .sign(key, hashes.SHA256())
    )
    cert, secret = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    secret.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    server = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server.load_cert_chain(cert, secret)
    client = ssl.create_default_context(cafile=str(cert))
    upstream = Upstream()
    assert asyncio.run(requests(upstream, 3, (server, client))) == ["ok"] * 3
    assert upstream.connections == 1
