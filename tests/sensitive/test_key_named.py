"""A value whose key names a secret is redacted, whatever the vendor or the language around
it; placeholders, references and keys that name nothing secret stay."""

from __future__ import annotations

import pytest

from adk_memory_kit.sensitive import detect_sensitive
from adk_memory_kit.sensitive.gate import redact_for_store
from adk_memory_kit.sensitive.key_named import KeyNamedDetector, key_words


@pytest.mark.parametrize(
    ("text", "secrets"),
    [
        ("P24_CRC=bef783f92300a811\nP24_SANDBOX=false", ("bef783f92300a811",)),
        (
            "Cấu hình thật: vnp_HashSecret=AVLLBBJYTPDDBMPVJTBLUGXJQZWWKNKJ",
            ("AVLLBBJYTPDDBMPVJTBLUGXJQZWWKNKJ",),
        ),
        ('{"payee":"A. McLeod","accountNo":"31907526","amount":"212.50"}', ("31907526",)),
        (
            'vendors:\n  - routing_number: "071000505"\n    account_number: "483920175522"',
            ("071000505", "483920175522"),
        ),
        (
            "datadog:\n  apiKey: df08d5553d8ab31b0663e2ecb39212f2\n  site: datadoghq.eu",
            ("df08d5553d8ab31b0663e2ecb39212f2",),
        ),
        ("environment:\n  - OWNER_RFC=HEGR520314K21", ("HEGR520314K21",)),
    ],
)
def test_a_value_its_key_names_secret_is_redacted(text: str, secrets: tuple[str, ...]) -> None:
    assert any(f.detector == "key_named" for f in detect_sensitive(text))
    stored = redact_for_store(text)
    for secret in secrets:
        assert secret not in stored, stored


@pytest.mark.parametrize(
    "text",
    [
        "administrator_login_password = var.sql_admin_password",
        "STRIPE_SECRET_KEY=<your-secret-key>\nAPI_TOKEN=${API_TOKEN}",
        "api_key: changeme",
        "FIREBASE_PROJECT_ID=my-app-dev-2024\nREGION=europe-west1",
        "account_type: checking",
        "DATABASE_URL=postgres://db.internal:5432/app",
        "password: XXXXXXXXXXXX",
        "ssl_key_file=/etc/ssl/private/key2024.pem\nAUTH_TOKEN_URL=https2.example/oauth2",
        'api_key_name: "billing-2024"\ntoken_ttl: 3600s1',
    ],
)
def test_placeholders_references_and_plain_keys_are_not_found(text: str) -> None:
    assert KeyNamedDetector().find(text) == []


def test_a_key_is_read_as_its_words() -> None:
    assert key_words("vnp_HashSecret")[:3] == ["vnp", "hash", "secret"]
    assert "accountno" in key_words("accountNo")
    assert {"api", "key"} <= set(key_words("P24_API_KEY"))


def test_a_one_time_code_in_two_groups_of_three_is_read_whole() -> None:
    text = "Kode WhatsApp Anda: 279-256. Jangan bagikan kode ini."
    stored = redact_for_store(text)
    assert "279" not in stored and "256" not in stored, stored
