"""A local S3 server for the object-store tests and benchmark: moto's server mode on 127.0.0.1."""
from __future__ import annotations

import contextlib
import socket
from typing import Iterator

import boto3
from moto.server import ThreadedMotoServer


def client(endpoint: str):
    """A boto3 S3 client of the local server (any credentials are accepted)."""
    return boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                        aws_access_key_id="test", aws_secret_access_key="test")


@contextlib.contextmanager
def local_s3(bucket: str) -> Iterator[str]:
    """Runs the server on a free loopback port with ``bucket`` created; yields its endpoint URL."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    endpoint = f"http://127.0.0.1:{port}"
    try:
        client(endpoint).create_bucket(Bucket=bucket)
        yield endpoint
    finally:
        server.stop()
