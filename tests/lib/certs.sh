# TLS material for tests, made with the openssl CLI: source it, then
#   make_certs DIR [AGENT_IP...]
# DIR gets (PEM, keys are EC P-256, unencrypted). Two CAs, as docs/security.md asks:
# one signs the agents' server certificates (clients trust it), the other the
# clients' certificates (the agents' tls.client_ca).
#   ca.crt ca.key                        the agents' CA
#   agent.crt agent.key                  server cert (EKU serverAuth; SAN: localhost, 127.0.0.1, AGENT_IP...)
#   clients-ca.crt clients-ca.key        the clients' CA
#   controller.crt controller.key        client cert (EKU clientAuth, CN=nettune-controller)
#   ops.crt ops.key                      client cert (EKU clientAuth, CN=ctl1, SAN DNS:ctl1.ops.test)
#   intruder.crt intruder.key            client cert (EKU clientAuth, CN=intruder)
#   monitor.crt monitor.key              client cert (EKU clientAuth, CN=monitor, SAN DNS:mon1.ro.test)
#   server-only.crt server-only.key      signed by the clients' CA but EKU serverAuth only
#   no-eku.crt no-eku.key                signed by the clients' CA, no extendedKeyUsage
#   wrongca.crt wrongca.key              an unrelated CA
#   wrong-client.crt wrong-client.key    client cert signed by the unrelated CA
#   expired.crt expired.key              client cert signed by the clients' CA, valid only in the past
# Expiry uses `openssl ca -startdate/-enddate` (openssl 3.0 has no x509 -not_after).

_certs_key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }

_certs_ca() {   # DIR NAME CN
        _certs_key "$1/$2.key"
        openssl req -x509 -new -key "$1/$2.key" -subj "/CN=$3" -days 30 -sha256 \
                -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign \
                -out "$1/$2.crt" 2>/dev/null
}

_certs_sign() { # DIR CA NAME CN EXT_LINES
        local d=$1 ca=$2 name=$3 cn=$4 ext=$5
        _certs_key "$d/$name.key"
        openssl req -new -key "$d/$name.key" -subj "/CN=$cn" -out "$d/$name.csr" 2>/dev/null
        printf '%b\n' "$ext" > "$d/$name.ext"
        openssl x509 -req -in "$d/$name.csr" -CA "$d/$ca.crt" -CAkey "$d/$ca.key" -CAcreateserial \
                -days 30 -sha256 -extfile "$d/$name.ext" -out "$d/$name.crt" 2>/dev/null
}

_certs_expired() { # DIR: client cert valid 2020-01-01 .. 2020-01-02, signed by clients-ca
        local d=$1 cadir=$1/ca-db
        mkdir -p "$cadir"
        : > "$cadir/index.txt"
        echo 1000 > "$cadir/serial"
        cat > "$cadir/ca.cnf" <<CNF
[ca]
default_ca = test
[test]
database = $cadir/index.txt
serial = $cadir/serial
new_certs_dir = $cadir
default_md = sha256
policy = any
copy_extensions = none
x509_extensions = client
[any]
commonName = supplied
[client]
basicConstraints = CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = clientAuth
CNF
        _certs_key "$d/expired.key"
        openssl req -new -key "$d/expired.key" -subj "/CN=expired-controller" -out "$d/expired.csr" 2>/dev/null
        openssl ca -batch -config "$cadir/ca.cnf" -cert "$d/clients-ca.crt" -keyfile "$d/clients-ca.key" \
                -startdate 20200101000000Z -enddate 20200102000000Z \
                -in "$d/expired.csr" -out "$d/expired.crt" >/dev/null 2>&1
}

make_certs() {
        local d=$1 san="DNS:localhost,IP:127.0.0.1" ip client="basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature"
        shift
        for ip in "$@"; do san="$san,IP:$ip"; done
        mkdir -p "$d"
        _certs_ca "$d" ca "nettune test agents ca"
        _certs_ca "$d" clients-ca "nettune test clients ca"
        _certs_ca "$d" wrongca "unrelated ca"
        _certs_sign "$d" ca agent "nettune-agent" \
                "$client\nextendedKeyUsage=serverAuth\nsubjectAltName=$san"
        _certs_sign "$d" clients-ca controller "nettune-controller" "$client\nextendedKeyUsage=clientAuth"
        _certs_sign "$d" clients-ca ops "ctl1" "$client\nextendedKeyUsage=clientAuth\nsubjectAltName=DNS:ctl1.ops.test"
        _certs_sign "$d" clients-ca intruder "intruder" "$client\nextendedKeyUsage=clientAuth"
        _certs_sign "$d" clients-ca monitor "monitor" "$client\nextendedKeyUsage=clientAuth\nsubjectAltName=DNS:mon1.ro.test"
        _certs_sign "$d" clients-ca server-only "nettune-agent-7" \
                "$client\nextendedKeyUsage=serverAuth\nsubjectAltName=DNS:localhost"
        _certs_sign "$d" clients-ca no-eku "no-purpose" "$client"
        _certs_sign "$d" wrongca wrong-client "nettune-controller" "$client\nextendedKeyUsage=clientAuth"
        _certs_expired "$d"
        for f in ca clients-ca agent controller ops intruder monitor server-only no-eku wrong-client expired; do
                [ -s "$d/$f.crt" ] || { echo "make_certs: could not make $f.crt" >&2; return 1; }
        done
}
