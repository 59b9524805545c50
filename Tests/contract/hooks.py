"""schemathesis hooks (SCHEMATHESIS_HOOKS): tus bodies are raw bytes, like application/octet-stream."""
import schemathesis

schemathesis.serializer.alias("application/offset+octet-stream", "application/octet-stream")
