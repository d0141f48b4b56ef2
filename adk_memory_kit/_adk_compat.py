"""The one door to private ADK names and tables.

Every use of a private google-adk name (a leading-underscore function or constant) or of ADK's
private database tables (``sessions``, ``user_states``) lives in this module and nowhere else in
the kit. Each item is pinned by a test in ``tests/compat/test_adk_compat.py`` that fails loudly
when an ADK release renames or changes it.
"""

from __future__ import annotations
