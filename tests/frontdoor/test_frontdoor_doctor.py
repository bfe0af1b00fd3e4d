"""The doctor's checks on stores of known behaviour: it signs what the store verifies, names the signer,
and says why a genuine write was refused."""

from __future__ import annotations

from lab.frontdoor.channels import signing_message
from lab.frontdoor.doctor import diagnose
from lab.frontdoor.reference import REFERENCE_STORES


class OwnFormatStore:
    """Accepts only a write signed over its own message and naming its signer (as inspeximus does)."""

    def __init__(self, trust_root: bytes):
        self.trust_root, self.kept, self.refusal = trust_root, [], None

    @staticmethod
    def message(scope, label, text, tags) -> bytes:
        return b"own-format:" + signing_message(scope, label, text, tags)

    def write(self, scope, text, label, signature, tags=frozenset(), signer=None) -> bool:
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

        try:
            if signer is None or signature is None:
                raise InvalidSignature("no signer named")
            Ed25519PublicKey.from_public_bytes(signer).verify(signature, self.message(scope, label, text, tags))
        except InvalidSignature:
            self.refusal = "attestation does not verify"
            return False
        self.kept.append((scope, text))
        return True

    def read(self, scope, query, k, tag=None):
        from lab.frontdoor.observations import Served

        return [Served(text=text, marker=None) for s, text in self.kept if s == scope][:k]


def test_the_doctor_signs_the_stores_own_message_and_names_the_signer():
    checks = diagnose(OwnFormatStore, OwnFormatStore.message)
    assert checks[0].name == "serves" and checks[0].ok, checks[0].detail


def test_a_refused_genuine_write_is_shown_with_what_the_store_said():
    [serves] = diagnose(OwnFormatStore)  # signed over the lab's default message: the store refuses it
    assert not serves.ok and "the store said: attestation does not verify" in serves.detail


def test_the_calibration_stores_keep_their_doctor_answers():
    checks = {name: {c.name: c.ok for c in diagnose(make)} for name, make in REFERENCE_STORES.items()}
    assert checks["naive"] == {"serves": True, "labels": False, "signatures": False, "content": False, "scopes": True}
    assert checks["signed-content"] == {"serves": True, "labels": True, "signatures": True, "content": True,
                                        "scopes": True}
