"""Cloud Run entry point: ADK's API server with the kit's ``pgvector://`` services.

``adk deploy cloud_run`` copies only ``agents/<app>/`` into its image, so an ``agents/services.py``
beside it never reaches the server. This file registers the scheme itself, then builds ADK's
own FastAPI app (``get_fast_api_app``, what ``adk api_server`` and ``adk web`` run). See
docs/deploy.md. Environment:

- ``AGENTS_DIR``: the folder holding the agent folders (default ``agents``);
- ``SESSION_SERVICE_URI`` / ``MEMORY_SERVICE_URI``: default ``pgvector://`` (then
  ``ADK_MEMORY_KIT_DB_URL``, else the embedded server: development only);
- ``PORT``: set by Cloud Run (default 8080); ``WITH_UI=1`` serves the dev UI too.
"""

from __future__ import annotations

import os

import uvicorn
from google.adk.cli.fast_api import get_fast_api_app

from adk_memory_kit import register_pgvector_services

register_pgvector_services()  # before the services are built

app = get_fast_api_app(
    agents_dir=os.environ.get("AGENTS_DIR", "agents"),
    session_service_uri=os.environ.get("SESSION_SERVICE_URI", "pgvector://"),
    memory_service_uri=os.environ.get("MEMORY_SERVICE_URI", "pgvector://"),
    web=os.environ.get("WITH_UI") == "1",
)

if __name__ == "__main__":
    uvicorn.run(app, host="0.0.0.0", port=int(os.environ.get("PORT", "8080")))
