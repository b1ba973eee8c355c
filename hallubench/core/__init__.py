"""The core layer: errors, model specs and backends with their cache, provenance, seeding, safe outputs and the
official files' readers. It imports nothing of the project above it."""
