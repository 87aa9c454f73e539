"""BGPsec (RFC 8205) objects and operations over hopsig's Rust libraries.

- :class:`Update` -- a whole BGP UPDATE message; :class:`PathAttribute` one attribute
  as framed on the wire;
- :class:`BgpsecPath` -- the BGPsec_PATH attribute: :class:`SecurePathSegment` list
  and one or two :class:`SignatureBlock` of :class:`Signature` segments;
- :class:`SigningKey`, :class:`RouterKeys` -- a router's key pair, and the
  (AS, SKI, public key) triples a validator trusts (files, RTR caches, or added);
- :class:`Signer`, :func:`sign` -- originate and forward signed UPDATEs;
- :func:`validate`, :func:`validate_many` -- RFC 8205 section 5.2, giving
  :class:`Verdict` objects (true exactly when valid) with the reason names of
  ``hopsig bgpsec validate-mrt``; :func:`backend` -- the signature verifier they use
  (``avx512ifma`` or ``cpu``).

Every ``to_bytes()`` gives back exactly the octets an object was decoded from.
Errors are :class:`hopsig.errors.InputError` with a ``reason``. docs/guide/python.md,
"BGPsec", is the guide.
"""

from ._native import bgpsec as _native_bgpsec

SecurePathSegment = _native_bgpsec.SecurePathSegment
Signature = _native_bgpsec.Signature
SignatureBlock = _native_bgpsec.SignatureBlock
BgpsecPath = _native_bgpsec.BgpsecPath
PathAttribute = _native_bgpsec.PathAttribute
Update = _native_bgpsec.Update
SigningKey = _native_bgpsec.SigningKey
RouterKeys = _native_bgpsec.RouterKeys
Signer = _native_bgpsec.Signer
Verdict = _native_bgpsec.Verdict
sign = _native_bgpsec.sign
validate = _native_bgpsec.validate
validate_many = _native_bgpsec.validate_many
backend = _native_bgpsec.backend

#: The Attribute Type Code of BGPsec_PATH (RFC 8205 section 9, IANA).
BGPSEC_PATH_TYPE_CODE = 33

__all__ = [
    "BGPSEC_PATH_TYPE_CODE",
    "BgpsecPath",
    "PathAttribute",
    "RouterKeys",
    "SecurePathSegment",
    "Signature",
    "SignatureBlock",
    "Signer",
    "SigningKey",
    "Update",
    "Verdict",
    "backend",
    "sign",
    "validate",
    "validate_many",
]
