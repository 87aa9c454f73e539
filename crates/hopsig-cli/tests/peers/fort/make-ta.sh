#!/usr/bin/env bash
# A minimal RPKI trust anchor for FORT 1.5.4 without a network: a self-signed TA
# certificate (RFC 6487 §4, all resources), its CRL (RFC 6487 §5) and a manifest
# (RFC 9286) listing the CRL, signed by a one-time EE certificate (RFC 6488), laid out as
# FORT's local repository cache (--local-repository=OUT/repo, --work-offline) with the
# TAL (RFC 8630) in OUT/tal. It publishes no ROAs and no router certificates: FORT
# refuses to start a server when it has no TAL or a TAL fails to validate, and the
# payload of the tests comes from a SLURM file (RFC 8416 locallyAddedAssertions).
#
# Usage: make-ta.sh OUT   (OUT must not exist; needs the openssl command line)
set -euo pipefail
OUT=$1
HOST=localhost.invalid
mkdir -p "$OUT/tal" "$OUT/repo/$HOST/ta" "$OUT/repo/$HOST/repo" "$OUT/ca/newcerts"
cd "$OUT/ca"
TA_URI=rsync://$HOST/ta/ta.cer
REPO=rsync://$HOST/repo/
: > index.txt
echo 01 > crlnumber
cat > ca.cnf <<CNF
[ ca ]
default_ca = ta
[ ta ]
dir = .
database = ./index.txt
new_certs_dir = ./newcerts
certificate = ./ta.pem
private_key = ./ta.key
serial = ./serial
crlnumber = ./crlnumber
default_md = sha256
default_crl_days = 7
policy = any
unique_subject = no
copy_extensions = none
email_in_dn = no
[ any ]
commonName = supplied
[ req ]
distinguished_name = dn
prompt = no
[ dn ]
CN = hopsig-test-ta
[ ta_ext ]
basicConstraints = critical,CA:TRUE
subjectKeyIdentifier = hash
keyUsage = critical,keyCertSign,cRLSign
subjectInfoAccess = 1.3.6.1.5.5.7.48.5;URI:$REPO,1.3.6.1.5.5.7.48.10;URI:${REPO}ta.mft
certificatePolicies = critical,1.3.6.1.5.5.7.14.2
sbgp-ipAddrBlock = critical,IPv4:0.0.0.0/0,IPv6:::/0
sbgp-autonomousSysNum = critical,AS:0-4294967295
[ ee_ext ]
keyUsage = critical,digitalSignature
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
crlDistributionPoints = URI:${REPO}ta.crl
authorityInfoAccess = caIssuers;URI:$TA_URI
subjectInfoAccess = 1.3.6.1.5.5.7.48.11;URI:${REPO}ta.mft
certificatePolicies = critical,1.3.6.1.5.5.7.14.2
sbgp-ipAddrBlock = critical,IPv4:inherit,IPv6:inherit
sbgp-autonomousSysNum = critical,AS:inherit
[ crl_ext ]
authorityKeyIdentifier = keyid:always
CNF
openssl genrsa -out ta.key 2048 2>/dev/null
openssl req -new -x509 -config ca.cnf -extensions ta_ext -key ta.key -days 3650 \
  -set_serial 1 -sha256 -out ta.pem
openssl x509 -in ta.pem -outform DER -out "$OUT/repo/$HOST/ta/ta.cer"
echo 02 > serial
openssl ca -batch -config ca.cnf -gencrl -crlexts crl_ext -out ta.crl.pem 2>/dev/null
openssl crl -in ta.crl.pem -outform DER -out "$OUT/repo/$HOST/repo/ta.crl"

# The manifest's EE certificate, valid from now for the manifest's lifetime.
openssl genrsa -out ee.key 2048 2>/dev/null
openssl req -new -key ee.key -subj /CN=hopsig-test-mft -out ee.csr
openssl ca -batch -config ca.cnf -extensions ee_ext -days 7 -in ee.csr -out ee.pem -notext 2>/dev/null
NOW=$(date -u +%Y%m%d%H%M%SZ)
NEXT=$(date -u -d '+7 days' +%Y%m%d%H%M%SZ)
HASH=$(openssl dgst -sha256 -binary "$OUT/repo/$HOST/repo/ta.crl" | od -An -tx1 | tr -d ' \n')
cat > mft.cnf <<CNF
asn1 = SEQUENCE:manifest
[ manifest ]
number = INTEGER:1
this = GENTIME:$NOW
next = GENTIME:$NEXT
alg = OID:2.16.840.1.101.3.4.2.1
files = SEQUENCE:files
[ files ]
crl = SEQUENCE:crl
[ crl ]
name = IA5STRING:ta.crl
hash = FORMAT:HEX,BITSTRING:$HASH
CNF
openssl asn1parse -genconf mft.cnf -out mft.der >/dev/null
openssl cms -sign -binary -nodetach -nosmimecap -keyid -md sha256 \
  -econtent_type 1.2.840.113549.1.9.16.1.26 -signer ee.pem -inkey ee.key \
  -in mft.der -outform DER -out "$OUT/repo/$HOST/repo/ta.mft"
{ echo "$TA_URI"; echo; openssl x509 -in ta.pem -noout -pubkey | grep -v -- '-----'; } > "$OUT/tal/test.tal"
