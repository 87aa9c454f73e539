# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_hopsig_global_optspecs
    string join \n log-format= log-level= h/help V/version
end

function __fish_hopsig_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_hopsig_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_hopsig_using_subcommand
    set -l cmd (__fish_hopsig_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c hopsig -n "__fish_hopsig_needs_command" -l log-format -d 'Log format of the long-running commands (speaker run, ndn publisher|moderator, rtr serve, bgpsec feed; default text); given, any command logs so' -r -f -a "text\t'tracing-subscriber\'s human format: `TIME LEVEL TARGET: MESSAGE field=value …`'
json\t'One JSON object a line: `timestamp`, `level`, `fields` (`message`, `event`, …), `target`'"
complete -c hopsig -n "__fish_hopsig_needs_command" -l log-level -d 'Which events to log, in RUST_LOG\'s syntax: a level (error, warn, info, debug, trace) and per-module levels, e.g. "info,hopsig_bgp::speaker::session=debug". Default: RUST_LOG for the long-running commands, else info' -r
complete -c hopsig -n "__fish_hopsig_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hopsig -n "__fish_hopsig_needs_command" -s V -l version -d 'Print version'
complete -c hopsig -n "__fish_hopsig_needs_command" -f -a "schemes" -d 'List scheme ids with a one-line description'
complete -c hopsig -n "__fish_hopsig_needs_command" -f -a "keygen" -d 'Generate a key pair: secret key to FILE, public key to FILE.pub'
complete -c hopsig -n "__fish_hopsig_needs_command" -f -a "sign" -d 'One hop: add this signer\'s signature on its message to the aggregate so far'
complete -c hopsig -n "__fish_hopsig_needs_command" -f -a "verify" -d 'Verify an aggregate against ordered (public key, message) pairs, first signer first; for ibas-bls12381, (identity, message) pairs in any order under a PKG\'s parameters. Exit 0 valid, 1 invalid (it decodes but fails verification), 2 input that does not decode or bad usage'
complete -c hopsig -n "__fish_hopsig_needs_command" -f -a "pkg" -d 'Private Key Generator for identity-based aggregates (ibas-bls12381)'
complete -c hopsig -n "__fish_hopsig_needs_command" -f -a "ic" -d 'Implicit certificates for PLA (003 §II-C): TTP, request, issue, finalize, verify'
complete -c hopsig -n "__fish_hopsig_needs_command" -f -a "kcx" -d 'Keychain signatures for BGP (KC-RSA, KC-MT, hybrid)'
complete -c hopsig -n "__fish_hopsig_needs_command" -f -a "inspect" -d 'Say what a file holds: a key file of any scheme (PKG, parameters and user keys of ibas-bls12381, the files of `hopsig ic`), an aggregate of any scheme, an IBAS journal, a HORS counter file, benchmark results (`bench --json`, the JSON files of `reproduce`), replay results (`replay --json`, `reproduce`\'s replay.json), a plain PEM / DER key or a bare signature. The report.md and SVG plots of `reproduce` are for people, not hopsig formats: they are reported as unknown'
complete -c hopsig -n "__fish_hopsig_needs_command" -f -a "bench" -d 'Run a benchmark suite (table1, table2, table3, table5, fig4, bgpsec, speaker, ndn, rpki, pla, rtr-sync)'
complete -c hopsig -n "__fish_hopsig_needs_command" -f -a "bgpsec" -d 'BGPsec: router keys, signed MRT files, validation, inspection'
complete -c hopsig -n "__fish_hopsig_needs_command" -f -a "replay" -d 'Replay one peer of an MRT trace through a router for each scheme: each announcement validated and signed for real, the measured times queued at the trace\'s arrival times (KC-x §V-A-3). Prints Tables IV and V beside the paper\'s; writes Fig. 5'
complete -c hopsig -n "__fish_hopsig_needs_command" -f -a "reproduce" -d 'Measure and print each paper table beside the paper\'s; write a report with plots'
complete -c hopsig -n "__fish_hopsig_needs_command" -f -a "speaker" -d 'A BGP-4 speaker with BGPsec: strict or lazy validation'
complete -c hopsig -n "__fish_hopsig_needs_command" -f -a "ndn" -d '004\'s publisher, moderator and subscriber over an NDN forwarder'
complete -c hopsig -n "__fish_hopsig_needs_command" -f -a "pla" -d 'Packet Level Authentication on IPv6 captures'
complete -c hopsig -n "__fish_hopsig_needs_command" -f -a "rtr" -d 'RPKI-to-Router (RFC 6810, RFC 8210, draft-ietf-sidrops-8210bis): ask a cache what it serves, or serve files as a cache'
complete -c hopsig -n "__fish_hopsig_needs_command" -f -a "batch" -d 'Many MRT files on a Dask cluster, one task per file (through the Python package)'
complete -c hopsig -n "__fish_hopsig_needs_command" -f -a "completions" -d 'Print a shell completion script for hopsig on standard output'
complete -c hopsig -n "__fish_hopsig_needs_command" -f -a "man" -d 'Print hopsig\'s manual page (roff) on standard output, or write one page per command with `--out`'
complete -c hopsig -n "__fish_hopsig_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c hopsig -n "__fish_hopsig_using_subcommand schemes" -l log-format -d 'Log format of the long-running commands (speaker run, ndn publisher|moderator, rtr serve, bgpsec feed; default text); given, any command logs so' -r -f -a "text\t'tracing-subscriber\'s human format: `TIME LEVEL TARGET: MESSAGE field=value …`'
json\t'One JSON object a line: `timestamp`, `level`, `fields` (`message`, `event`, …), `target`'"
complete -c hopsig -n "__fish_hopsig_using_subcommand schemes" -l log-level -d 'Which events to log, in RUST_LOG\'s syntax: a level (error, warn, info, debug, trace) and per-module levels, e.g. "info,hopsig_bgp::speaker::session=debug". Default: RUST_LOG for the long-running commands, else info' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand schemes" -l json -d 'Print JSON instead of a table'
complete -c hopsig -n "__fish_hopsig_using_subcommand schemes" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hopsig -n "__fish_hopsig_using_subcommand keygen" -l scheme -d 'Scheme id (see `hopsig schemes`)' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand keygen" -l out -d 'Secret key file to write (mode 0600); the public key goes to FILE.pub' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand keygen" -l log-format -d 'Log format of the long-running commands (speaker run, ndn publisher|moderator, rtr serve, bgpsec feed; default text); given, any command logs so' -r -f -a "text\t'tracing-subscriber\'s human format: `TIME LEVEL TARGET: MESSAGE field=value …`'
json\t'One JSON object a line: `timestamp`, `level`, `fields` (`message`, `event`, …), `target`'"
complete -c hopsig -n "__fish_hopsig_using_subcommand keygen" -l log-level -d 'Which events to log, in RUST_LOG\'s syntax: a level (error, warn, info, debug, trace) and per-module levels, e.g. "info,hopsig_bgp::speaker::session=debug". Default: RUST_LOG for the long-running commands, else info' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand keygen" -l force -d 'Overwrite existing files'
complete -c hopsig -n "__fish_hopsig_using_subcommand keygen" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hopsig -n "__fish_hopsig_using_subcommand sign" -l key -d 'Secret key file: a hopsig key file, or a plain PKCS #8 private key (PEM or DER) of a scheme whose keys are standard (with --scheme)' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand sign" -l scheme -d 'The key\'s scheme: needed for a plain PKCS #8 key (rsa2048-concat, ecdsa-p256-concat, ecdsa-k163, ecdsa-k233, ecdsa-k283); a hopsig key file must be of this scheme' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand sign" -l msg -d 'Message file' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand sign" -l agg -d 'Aggregate so far (omit for the first signer). It is not verified. For the concatenation schemes a bare signature counts as one signer' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand sign" -l out -d 'Where to write the new aggregate' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand sign" -l journal -d 'IBAS only: the journal of state strings w this key has signed under (default: the key\'s own journal in the state folder, see --state-dir). It must exist, unless --new-journal is given. Signing another message under a recorded w is refused: it would allow forgeries' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand sign" -l state-dir -d 'IBAS only: folder of per-key journals (default $HOPSIG_STATE_DIR, else $XDG_STATE_HOME/hopsig, else ~/.local/state/hopsig). The key\'s journal in it must exist, unless --new-journal is given' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand sign" -l log-format -d 'Log format of the long-running commands (speaker run, ndn publisher|moderator, rtr serve, bgpsec feed; default text); given, any command logs so' -r -f -a "text\t'tracing-subscriber\'s human format: `TIME LEVEL TARGET: MESSAGE field=value …`'
json\t'One JSON object a line: `timestamp`, `level`, `fields` (`message`, `event`, …), `target`'"
complete -c hopsig -n "__fish_hopsig_using_subcommand sign" -l log-level -d 'Which events to log, in RUST_LOG\'s syntax: a level (error, warn, info, debug, trace) and per-module levels, e.g. "info,hopsig_bgp::speaker::session=debug". Default: RUST_LOG for the long-running commands, else info' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand sign" -l force -d 'Overwrite an existing --out (never one of this command\'s inputs)'
complete -c hopsig -n "__fish_hopsig_using_subcommand sign" -l new-journal -d 'IBAS only: start a new journal at --journal FILE or in --state-dir DIR if there is none. A new journal knows none of the w this key signed under elsewhere: only for a key that has never signed, or whose journal moves there for good. (In the default state folder a key\'s journal is started without it.)'
complete -c hopsig -n "__fish_hopsig_using_subcommand sign" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hopsig -n "__fish_hopsig_using_subcommand verify" -l scheme -d 'Scheme id' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand verify" -l pub -d 'Public key file of signer i (repeat, in signing order): a hopsig .pub file, or a plain SubjectPublicKeyInfo key (PEM or DER) for the schemes whose keys are standard (RSA and ECDSA concatenations, BGR)' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand verify" -l id -d 'IBAS: identity of a signer (repeat, in any order: the aggregate is a sum; each --id goes with the --msg at the same position; each identity once)' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand verify" -l pkg -d 'IBAS: PKG folder whose params.pub holds the public parameters' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand verify" -l params -d 'IBAS: the public parameters file itself (instead of --pkg)' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand verify" -l msg -d 'Message file of signer i (repeat, in the order of --pub, or of --id for IBAS)' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand verify" -l agg -d 'Aggregate file. For the concatenation schemes a bare signature (DER ECDSA, or the 256 bytes of RSA, with no hopsig header) is an aggregate of one signer' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand verify" -l log-format -d 'Log format of the long-running commands (speaker run, ndn publisher|moderator, rtr serve, bgpsec feed; default text); given, any command logs so' -r -f -a "text\t'tracing-subscriber\'s human format: `TIME LEVEL TARGET: MESSAGE field=value …`'
json\t'One JSON object a line: `timestamp`, `level`, `fields` (`message`, `event`, …), `target`'"
complete -c hopsig -n "__fish_hopsig_using_subcommand verify" -l log-level -d 'Which events to log, in RUST_LOG\'s syntax: a level (error, warn, info, debug, trace) and per-module levels, e.g. "info,hopsig_bgp::speaker::session=debug". Default: RUST_LOG for the long-running commands, else info' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand verify" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hopsig -n "__fish_hopsig_using_subcommand pkg; and not __fish_seen_subcommand_from setup extract help" -l log-format -d 'Log format of the long-running commands (speaker run, ndn publisher|moderator, rtr serve, bgpsec feed; default text); given, any command logs so' -r -f -a "text\t'tracing-subscriber\'s human format: `TIME LEVEL TARGET: MESSAGE field=value …`'
json\t'One JSON object a line: `timestamp`, `level`, `fields` (`message`, `event`, …), `target`'"
complete -c hopsig -n "__fish_hopsig_using_subcommand pkg; and not __fish_seen_subcommand_from setup extract help" -l log-level -d 'Which events to log, in RUST_LOG\'s syntax: a level (error, warn, info, debug, trace) and per-module levels, e.g. "info,hopsig_bgp::speaker::session=debug". Default: RUST_LOG for the long-running commands, else info' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand pkg; and not __fish_seen_subcommand_from setup extract help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hopsig -n "__fish_hopsig_using_subcommand pkg; and not __fish_seen_subcommand_from setup extract help" -f -a "setup" -d 'Create a PKG: master secret to DIR/pkg.key (mode 0600), public parameters to DIR/params.pub'
complete -c hopsig -n "__fish_hopsig_using_subcommand pkg; and not __fish_seen_subcommand_from setup extract help" -f -a "extract" -d 'Extract the private key of an identity (e.g. an NDN name) into FILE'
complete -c hopsig -n "__fish_hopsig_using_subcommand pkg; and not __fish_seen_subcommand_from setup extract help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c hopsig -n "__fish_hopsig_using_subcommand pkg; and __fish_seen_subcommand_from setup" -l out -d 'Folder to create or use' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand pkg; and __fish_seen_subcommand_from setup" -l log-format -d 'Log format of the long-running commands (speaker run, ndn publisher|moderator, rtr serve, bgpsec feed; default text); given, any command logs so' -r -f -a "text\t'tracing-subscriber\'s human format: `TIME LEVEL TARGET: MESSAGE field=value …`'
json\t'One JSON object a line: `timestamp`, `level`, `fields` (`message`, `event`, …), `target`'"
complete -c hopsig -n "__fish_hopsig_using_subcommand pkg; and __fish_seen_subcommand_from setup" -l log-level -d 'Which events to log, in RUST_LOG\'s syntax: a level (error, warn, info, debug, trace) and per-module levels, e.g. "info,hopsig_bgp::speaker::session=debug". Default: RUST_LOG for the long-running commands, else info' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand pkg; and __fish_seen_subcommand_from setup" -l force -d 'Overwrite an existing PKG there'
complete -c hopsig -n "__fish_hopsig_using_subcommand pkg; and __fish_seen_subcommand_from setup" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hopsig -n "__fish_hopsig_using_subcommand pkg; and __fish_seen_subcommand_from extract" -l pkg -d 'PKG folder (reads DIR/pkg.key)' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand pkg; and __fish_seen_subcommand_from extract" -l id -d 'The identity: 1 to 1024 bytes of UTF-8' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand pkg; and __fish_seen_subcommand_from extract" -l out -d 'Key file to write (mode 0600)' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand pkg; and __fish_seen_subcommand_from extract" -l log-format -d 'Log format of the long-running commands (speaker run, ndn publisher|moderator, rtr serve, bgpsec feed; default text); given, any command logs so' -r -f -a "text\t'tracing-subscriber\'s human format: `TIME LEVEL TARGET: MESSAGE field=value …`'
json\t'One JSON object a line: `timestamp`, `level`, `fields` (`message`, `event`, …), `target`'"
complete -c hopsig -n "__fish_hopsig_using_subcommand pkg; and __fish_seen_subcommand_from extract" -l log-level -d 'Which events to log, in RUST_LOG\'s syntax: a level (error, warn, info, debug, trace) and per-module levels, e.g. "info,hopsig_bgp::speaker::session=debug". Default: RUST_LOG for the long-running commands, else info' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand pkg; and __fish_seen_subcommand_from extract" -l force -d 'Overwrite an existing file'
complete -c hopsig -n "__fish_hopsig_using_subcommand pkg; and __fish_seen_subcommand_from extract" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hopsig -n "__fish_hopsig_using_subcommand pkg; and __fish_seen_subcommand_from help" -f -a "setup" -d 'Create a PKG: master secret to DIR/pkg.key (mode 0600), public parameters to DIR/params.pub'
complete -c hopsig -n "__fish_hopsig_using_subcommand pkg; and __fish_seen_subcommand_from help" -f -a "extract" -d 'Extract the private key of an identity (e.g. an NDN name) into FILE'
complete -c hopsig -n "__fish_hopsig_using_subcommand pkg; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and not __fish_seen_subcommand_from ttp request issue finalize certify-key verify help" -l curve -d 'Curve of the files `ttp` and `request` create (default k163). The other steps read the curve from their input files; given to them, it must match' -r -f -a "k163\t''
k233\t''
k283\t''"
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and not __fish_seen_subcommand_from ttp request issue finalize certify-key verify help" -l log-format -d 'Log format of the long-running commands (speaker run, ndn publisher|moderator, rtr serve, bgpsec feed; default text); given, any command logs so' -r -f -a "text\t'tracing-subscriber\'s human format: `TIME LEVEL TARGET: MESSAGE field=value …`'
json\t'One JSON object a line: `timestamp`, `level`, `fields` (`message`, `event`, …), `target`'"
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and not __fish_seen_subcommand_from ttp request issue finalize certify-key verify help" -l log-level -d 'Which events to log, in RUST_LOG\'s syntax: a level (error, warn, info, debug, trace) and per-module levels, e.g. "info,hopsig_bgp::speaker::session=debug". Default: RUST_LOG for the long-running commands, else info' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and not __fish_seen_subcommand_from ttp request issue finalize certify-key verify help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and not __fish_seen_subcommand_from ttp request issue finalize certify-key verify help" -f -a "ttp" -d 'Create a TTP: DIR/ttp.key (0600) and DIR/ttp.pub'
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and not __fish_seen_subcommand_from ttp request issue finalize certify-key verify help" -f -a "request" -d 'Alice\'s blinded request: FILE (secret, 0600) and FILE.req for the TTP'
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and not __fish_seen_subcommand_from ttp request issue finalize certify-key verify help" -f -a "issue" -d 'The TTP certifies an identity for a request'
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and not __fish_seen_subcommand_from ttp request issue finalize certify-key verify help" -f -a "finalize" -d 'Alice\'s final key (an ecdsa-k* key file) and public certificate FILE.cert'
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and not __fish_seen_subcommand_from ttp request issue finalize certify-key verify help" -f -a "certify-key" -d 'The TTP signs a host\'s public key (PLA\'s certificate-based layout): a key certificate FILE for `hopsig pla sign-pcap --cert`'
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and not __fish_seen_subcommand_from ttp request issue finalize certify-key verify help" -f -a "verify" -d 'Verify a `hopsig sign` signature, extracting the key from the certificate in the same multi-scalar multiplication (exit 0 valid, 1 invalid, 2 input that does not decode)'
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and not __fish_seen_subcommand_from ttp request issue finalize certify-key verify help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from ttp" -l out -d 'Folder' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from ttp" -l curve -d 'Curve of the files `ttp` and `request` create (default k163). The other steps read the curve from their input files; given to them, it must match' -r -f -a "k163\t''
k233\t''
k283\t''"
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from ttp" -l log-format -d 'Log format of the long-running commands (speaker run, ndn publisher|moderator, rtr serve, bgpsec feed; default text); given, any command logs so' -r -f -a "text\t'tracing-subscriber\'s human format: `TIME LEVEL TARGET: MESSAGE field=value …`'
json\t'One JSON object a line: `timestamp`, `level`, `fields` (`message`, `event`, …), `target`'"
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from ttp" -l log-level -d 'Which events to log, in RUST_LOG\'s syntax: a level (error, warn, info, debug, trace) and per-module levels, e.g. "info,hopsig_bgp::speaker::session=debug". Default: RUST_LOG for the long-running commands, else info' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from ttp" -l force -d 'Overwrite'
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from ttp" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from request" -l out -d 'Blind file to write' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from request" -l curve -d 'Curve of the files `ttp` and `request` create (default k163). The other steps read the curve from their input files; given to them, it must match' -r -f -a "k163\t''
k233\t''
k283\t''"
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from request" -l log-format -d 'Log format of the long-running commands (speaker run, ndn publisher|moderator, rtr serve, bgpsec feed; default text); given, any command logs so' -r -f -a "text\t'tracing-subscriber\'s human format: `TIME LEVEL TARGET: MESSAGE field=value …`'
json\t'One JSON object a line: `timestamp`, `level`, `fields` (`message`, `event`, …), `target`'"
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from request" -l log-level -d 'Which events to log, in RUST_LOG\'s syntax: a level (error, warn, info, debug, trace) and per-module levels, e.g. "info,hopsig_bgp::speaker::session=debug". Default: RUST_LOG for the long-running commands, else info' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from request" -l force -d 'Overwrite'
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from request" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from issue" -l ttp -d 'TTP folder' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from issue" -l id -d 'Identity (e.g. the IPv6 source address): 1 to 1024 bytes of UTF-8' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from issue" -l request -d 'Request file (FILE.req)' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from issue" -l out -d 'Answer file to write (secret, 0600)' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from issue" -l curve -d 'Curve of the files `ttp` and `request` create (default k163). The other steps read the curve from their input files; given to them, it must match' -r -f -a "k163\t''
k233\t''
k283\t''"
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from issue" -l log-format -d 'Log format of the long-running commands (speaker run, ndn publisher|moderator, rtr serve, bgpsec feed; default text); given, any command logs so' -r -f -a "text\t'tracing-subscriber\'s human format: `TIME LEVEL TARGET: MESSAGE field=value …`'
json\t'One JSON object a line: `timestamp`, `level`, `fields` (`message`, `event`, …), `target`'"
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from issue" -l log-level -d 'Which events to log, in RUST_LOG\'s syntax: a level (error, warn, info, debug, trace) and per-module levels, e.g. "info,hopsig_bgp::speaker::session=debug". Default: RUST_LOG for the long-running commands, else info' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from issue" -l force -d 'Overwrite'
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from issue" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from finalize" -l blind -d 'Blind file' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from finalize" -l issued -d 'The TTP\'s answer' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from finalize" -l ttp-pub -d 'TTP public key (DIR/ttp.pub)' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from finalize" -l out -d 'Key file to write' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from finalize" -l curve -d 'Curve of the files `ttp` and `request` create (default k163). The other steps read the curve from their input files; given to them, it must match' -r -f -a "k163\t''
k233\t''
k283\t''"
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from finalize" -l log-format -d 'Log format of the long-running commands (speaker run, ndn publisher|moderator, rtr serve, bgpsec feed; default text); given, any command logs so' -r -f -a "text\t'tracing-subscriber\'s human format: `TIME LEVEL TARGET: MESSAGE field=value …`'
json\t'One JSON object a line: `timestamp`, `level`, `fields` (`message`, `event`, …), `target`'"
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from finalize" -l log-level -d 'Which events to log, in RUST_LOG\'s syntax: a level (error, warn, info, debug, trace) and per-module levels, e.g. "info,hopsig_bgp::speaker::session=debug". Default: RUST_LOG for the long-running commands, else info' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from finalize" -l force -d 'Overwrite'
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from finalize" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from certify-key" -l ttp -d 'TTP folder' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from certify-key" -l public -d 'The host\'s public key (an ecdsa-k* .pub file from `hopsig keygen`)' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from certify-key" -l out -d 'Key certificate to write' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from certify-key" -l curve -d 'Curve of the files `ttp` and `request` create (default k163). The other steps read the curve from their input files; given to them, it must match' -r -f -a "k163\t''
k233\t''
k283\t''"
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from certify-key" -l log-format -d 'Log format of the long-running commands (speaker run, ndn publisher|moderator, rtr serve, bgpsec feed; default text); given, any command logs so' -r -f -a "text\t'tracing-subscriber\'s human format: `TIME LEVEL TARGET: MESSAGE field=value …`'
json\t'One JSON object a line: `timestamp`, `level`, `fields` (`message`, `event`, …), `target`'"
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from certify-key" -l log-level -d 'Which events to log, in RUST_LOG\'s syntax: a level (error, warn, info, debug, trace) and per-module levels, e.g. "info,hopsig_bgp::speaker::session=debug". Default: RUST_LOG for the long-running commands, else info' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from certify-key" -l force -d 'Overwrite'
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from certify-key" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from verify" -l ttp-pub -d 'TTP public key' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from verify" -l cert -d 'Certificate (FILE.cert)' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from verify" -l msg -d 'Message file' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from verify" -l agg -d 'Signature file from `hopsig sign` (an aggregate of one signer), or a bare DER ECDSA signature' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from verify" -l curve -d 'Curve of the files `ttp` and `request` create (default k163). The other steps read the curve from their input files; given to them, it must match' -r -f -a "k163\t''
k233\t''
k283\t''"
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from verify" -l log-format -d 'Log format of the long-running commands (speaker run, ndn publisher|moderator, rtr serve, bgpsec feed; default text); given, any command logs so' -r -f -a "text\t'tracing-subscriber\'s human format: `TIME LEVEL TARGET: MESSAGE field=value …`'
json\t'One JSON object a line: `timestamp`, `level`, `fields` (`message`, `event`, …), `target`'"
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from verify" -l log-level -d 'Which events to log, in RUST_LOG\'s syntax: a level (error, warn, info, debug, trace) and per-module levels, e.g. "info,hopsig_bgp::speaker::session=debug". Default: RUST_LOG for the long-running commands, else info' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from verify" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from help" -f -a "ttp" -d 'Create a TTP: DIR/ttp.key (0600) and DIR/ttp.pub'
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from help" -f -a "request" -d 'Alice\'s blinded request: FILE (secret, 0600) and FILE.req for the TTP'
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from help" -f -a "issue" -d 'The TTP certifies an identity for a request'
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from help" -f -a "finalize" -d 'Alice\'s final key (an ecdsa-k* key file) and public certificate FILE.cert'
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from help" -f -a "certify-key" -d 'The TTP signs a host\'s public key (PLA\'s certificate-based layout): a key certificate FILE for `hopsig pla sign-pcap --cert`'
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from help" -f -a "verify" -d 'Verify a `hopsig sign` signature, extracting the key from the certificate in the same multi-scalar multiplication (exit 0 valid, 1 invalid, 2 input that does not decode)'
complete -c hopsig -n "__fish_hopsig_using_subcommand ic; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c hopsig -n "__fish_hopsig_using_subcommand kcx; and not __fish_seen_subcommand_from path help" -l log-format -d 'Log format of the long-running commands (speaker run, ndn publisher|moderator, rtr serve, bgpsec feed; default text); given, any command logs so' -r -f -a "text\t'tracing-subscriber\'s human format: `TIME LEVEL TARGET: MESSAGE field=value …`'
json\t'One JSON object a line: `timestamp`, `level`, `fields` (`message`, `event`, …), `target`'"
complete -c hopsig -n "__fish_hopsig_using_subcommand kcx; and not __fish_seen_subcommand_from path help" -l log-level -d 'Which events to log, in RUST_LOG\'s syntax: a level (error, warn, info, debug, trace) and per-module levels, e.g. "info,hopsig_bgp::speaker::session=debug". Default: RUST_LOG for the long-running commands, else info' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand kcx; and not __fish_seen_subcommand_from path help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hopsig -n "__fish_hopsig_using_subcommand kcx; and not __fish_seen_subcommand_from path help" -f -a "path" -d 'Sign a route hop by hop along a simulated AS path, verify it, report sizes'
complete -c hopsig -n "__fish_hopsig_using_subcommand kcx; and not __fish_seen_subcommand_from path help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c hopsig -n "__fish_hopsig_using_subcommand kcx; and __fish_seen_subcommand_from path" -l variant -d 'The realization' -r -f -a "rsa\t'Every hop KC-RSA'
mt\t'Every hop KC-MT'
hybrid\t'KC-RSA on odd hops, KC-MT on even hops'"
complete -c hopsig -n "__fish_hopsig_using_subcommand kcx; and __fish_seen_subcommand_from path" -l hops -d 'Number of speakers on the path, origin included (1..=64)' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand kcx; and __fish_seen_subcommand_from path" -l suite -d 'The parameter suite' -r -f -a "modern\t'RSA-2048, HORS 4096/16: forgery bound 2^-64'
paper\t'RSA-1024, HORS 512/3: bound 2^-11, to reproduce the paper only (warns)'"
complete -c hopsig -n "__fish_hopsig_using_subcommand kcx; and __fish_seen_subcommand_from path" -l log-format -d 'Log format of the long-running commands (speaker run, ndn publisher|moderator, rtr serve, bgpsec feed; default text); given, any command logs so' -r -f -a "text\t'tracing-subscriber\'s human format: `TIME LEVEL TARGET: MESSAGE field=value …`'
json\t'One JSON object a line: `timestamp`, `level`, `fields` (`message`, `event`, …), `target`'"
complete -c hopsig -n "__fish_hopsig_using_subcommand kcx; and __fish_seen_subcommand_from path" -l log-level -d 'Which events to log, in RUST_LOG\'s syntax: a level (error, warn, info, debug, trace) and per-module levels, e.g. "info,hopsig_bgp::speaker::session=debug". Default: RUST_LOG for the long-running commands, else info' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand kcx; and __fish_seen_subcommand_from path" -l json -d 'Print JSON'
complete -c hopsig -n "__fish_hopsig_using_subcommand kcx; and __fish_seen_subcommand_from path" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hopsig -n "__fish_hopsig_using_subcommand kcx; and __fish_seen_subcommand_from help" -f -a "path" -d 'Sign a route hop by hop along a simulated AS path, verify it, report sizes'
complete -c hopsig -n "__fish_hopsig_using_subcommand kcx; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c hopsig -n "__fish_hopsig_using_subcommand inspect" -l log-format -d 'Log format of the long-running commands (speaker run, ndn publisher|moderator, rtr serve, bgpsec feed; default text); given, any command logs so' -r -f -a "text\t'tracing-subscriber\'s human format: `TIME LEVEL TARGET: MESSAGE field=value …`'
json\t'One JSON object a line: `timestamp`, `level`, `fields` (`message`, `event`, …), `target`'"
complete -c hopsig -n "__fish_hopsig_using_subcommand inspect" -l log-level -d 'Which events to log, in RUST_LOG\'s syntax: a level (error, warn, info, debug, trace) and per-module levels, e.g. "info,hopsig_bgp::speaker::session=debug". Default: RUST_LOG for the long-running commands, else info' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand inspect" -l json -d 'Print JSON'
complete -c hopsig -n "__fish_hopsig_using_subcommand inspect" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hopsig -n "__fish_hopsig_using_subcommand bench" -l json -d 'Write the rows as JSON to FILE (checked before the run)' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand bench" -l data -d 'The data folder (RIPE RIS MRT files under mrt/), for table3 and bgpsec' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand bench" -l log-format -d 'Log format of the long-running commands (speaker run, ndn publisher|moderator, rtr serve, bgpsec feed; default text); given, any command logs so' -r -f -a "text\t'tracing-subscriber\'s human format: `TIME LEVEL TARGET: MESSAGE field=value …`'
json\t'One JSON object a line: `timestamp`, `level`, `fields` (`message`, `event`, …), `target`'"
complete -c hopsig -n "__fish_hopsig_using_subcommand bench" -l log-level -d 'Which events to log, in RUST_LOG\'s syntax: a level (error, warn, info, debug, trace) and per-module levels, e.g. "info,hopsig_bgp::speaker::session=debug". Default: RUST_LOG for the long-running commands, else info' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand bench" -l quick -d 'Fewer n values and shorter measurements'
complete -c hopsig -n "__fish_hopsig_using_subcommand bench" -l force -d 'Overwrite an existing JSON file'
complete -c hopsig -n "__fish_hopsig_using_subcommand bench" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and not __fish_seen_subcommand_from keygen keys sign-mrt validate-mrt inspect feed help" -l log-format -d 'Log format of the long-running commands (speaker run, ndn publisher|moderator, rtr serve, bgpsec feed; default text); given, any command logs so' -r -f -a "text\t'tracing-subscriber\'s human format: `TIME LEVEL TARGET: MESSAGE field=value …`'
json\t'One JSON object a line: `timestamp`, `level`, `fields` (`message`, `event`, …), `target`'"
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and not __fish_seen_subcommand_from keygen keys sign-mrt validate-mrt inspect feed help" -l log-level -d 'Which events to log, in RUST_LOG\'s syntax: a level (error, warn, info, debug, trace) and per-module levels, e.g. "info,hopsig_bgp::speaker::session=debug". Default: RUST_LOG for the long-running commands, else info' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and not __fish_seen_subcommand_from keygen keys sign-mrt validate-mrt inspect feed help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and not __fish_seen_subcommand_from keygen keys sign-mrt validate-mrt inspect feed help" -f -a "keygen" -d 'Generate a BGPsec router key for an AS'
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and not __fish_seen_subcommand_from keygen keys sign-mrt validate-mrt inspect feed help" -f -a "keys" -d 'List the router keys of an rpki-client JSON file or a keys folder'
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and not __fish_seen_subcommand_from keygen keys sign-mrt validate-mrt inspect feed help" -f -a "sign-mrt" -d 'Sign every announcement of an MRT file as the BGPsec UPDATE its AS path would carry'
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and not __fish_seen_subcommand_from keygen keys sign-mrt validate-mrt inspect feed help" -f -a "validate-mrt" -d 'Validate every BGPsec UPDATE of an MRT file, on every core'
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and not __fish_seen_subcommand_from keygen keys sign-mrt validate-mrt inspect feed help" -f -a "inspect" -d 'Print UPDATEs as bgpkit-parser does, with their Secure_Path and signatures'
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and not __fish_seen_subcommand_from keygen keys sign-mrt validate-mrt inspect feed help" -f -a "feed" -d 'Replay an MRT file\'s UPDATEs into a router under test, with fault injection'
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and not __fish_seen_subcommand_from keygen keys sign-mrt validate-mrt inspect feed help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from keygen" -l asn -d 'The router\'s AS number (1 to 4294967295, not AS_TRANS 23456)' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from keygen" -l out -d 'The secret key file to write; FILE.json gets the public key' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from keygen" -l suite -d 'Algorithm suite: name or number' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from keygen" -l log-format -d 'Log format of the long-running commands (speaker run, ndn publisher|moderator, rtr serve, bgpsec feed; default text); given, any command logs so' -r -f -a "text\t'tracing-subscriber\'s human format: `TIME LEVEL TARGET: MESSAGE field=value …`'
json\t'One JSON object a line: `timestamp`, `level`, `fields` (`message`, `event`, …), `target`'"
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from keygen" -l log-level -d 'Which events to log, in RUST_LOG\'s syntax: a level (error, warn, info, debug, trace) and per-module levels, e.g. "info,hopsig_bgp::speaker::session=debug". Default: RUST_LOG for the long-running commands, else info' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from keygen" -l force -d 'Replace FILE and FILE.json if they exist'
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from keygen" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from keys" -l at -d 'Keep what is valid at this time, in Unix seconds [default: now]' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from keys" -l log-format -d 'Log format of the long-running commands (speaker run, ndn publisher|moderator, rtr serve, bgpsec feed; default text); given, any command logs so' -r -f -a "text\t'tracing-subscriber\'s human format: `TIME LEVEL TARGET: MESSAGE field=value …`'
json\t'One JSON object a line: `timestamp`, `level`, `fields` (`message`, `event`, …), `target`'"
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from keys" -l log-level -d 'Which events to log, in RUST_LOG\'s syntax: a level (error, warn, info, debug, trace) and per-module levels, e.g. "info,hopsig_bgp::speaker::session=debug". Default: RUST_LOG for the long-running commands, else info' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from keys" -l json -d 'Print the keys as rpki-client\'s JSON instead (a folder becomes a JSON file)'
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from keys" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from sign-mrt" -l suite -d 'Algorithm suite: name or number (1 = ecdsa-p256-sha256, RFC 8608)' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from sign-mrt" -l keys -d 'Folder for the keys (created if missing)' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from sign-mrt" -l limit -d 'Sign the first N announcements only' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from sign-mrt" -l target-as -d 'The AS the newest signature targets where the file does not name the collector\'s (RIB dumps); RIPE RIS\'s by default' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from sign-mrt" -l threads -d 'Threads that generate keys and sign [default: every core]' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from sign-mrt" -l json -d 'Also write the summary as JSON to FILE (docs/spec/json.md; checked before the run, placed with OUT and the keys)' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from sign-mrt" -l log-format -d 'Log format of the long-running commands (speaker run, ndn publisher|moderator, rtr serve, bgpsec feed; default text); given, any command logs so' -r -f -a "text\t'tracing-subscriber\'s human format: `TIME LEVEL TARGET: MESSAGE field=value …`'
json\t'One JSON object a line: `timestamp`, `level`, `fields` (`message`, `event`, …), `target`'"
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from sign-mrt" -l log-level -d 'Which events to log, in RUST_LOG\'s syntax: a level (error, warn, info, debug, trace) and per-module levels, e.g. "info,hopsig_bgp::speaker::session=debug". Default: RUST_LOG for the long-running commands, else info' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from sign-mrt" -l force -d 'Replace OUT and key files that exist'
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from sign-mrt" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from validate-mrt" -l keys -d 'The router keys: rpki-client\'s JSON (`bgpsec_keys`: asn, ski, pubkey), or a folder of router certificates and AS<N>.pem public keys' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from validate-mrt" -l rpki -d 'RPKI files beside --keys: rpki-client JSON (roas, bgpsec_keys, aspas), Routinator jsonext, SLURM, key folders; repeatable. Adds the ROV and ASPA verdicts' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from validate-mrt" -l rtr -d 'An RPKI cache to take VRPs, router keys and ASPAs from over RTR (one Reset Query); repeatable, merged with the files. Adds the ROV and ASPA verdicts' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from validate-mrt" -l role -d 'The role of the collector\'s peers for ASPA verification: customer, peer, provider, rs, rs-client' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from validate-mrt" -l at -d 'Use the keys valid at this time, in Unix seconds [default: now]' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from validate-mrt" -l threads -d 'Validating threads [default: every core]' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from validate-mrt" -l json -d 'Also write the summary as JSON to OUT (checked before the run)' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from validate-mrt" -l signature-cache -d 'Bytes of the signature cache the threads share: a signature already verified (same key, signature and signed octets) is not verified again; 0 turns it off (docs/spec/bgpsec-mrt.md, "Signature cache")' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from validate-mrt" -l log-format -d 'Log format of the long-running commands (speaker run, ndn publisher|moderator, rtr serve, bgpsec feed; default text); given, any command logs so' -r -f -a "text\t'tracing-subscriber\'s human format: `TIME LEVEL TARGET: MESSAGE field=value …`'
json\t'One JSON object a line: `timestamp`, `level`, `fields` (`message`, `event`, …), `target`'"
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from validate-mrt" -l log-level -d 'Which events to log, in RUST_LOG\'s syntax: a level (error, warn, info, debug, trace) and per-module levels, e.g. "info,hopsig_bgp::speaker::session=debug". Default: RUST_LOG for the long-running commands, else info' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from validate-mrt" -l force -d 'Replace the JSON file if it exists'
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from validate-mrt" -l json-lines -d 'Print one JSON line per UPDATE (record, verdict, reason) and a trailer line with the metadata and the summary, instead of the text summary'
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from validate-mrt" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from inspect" -l log-format -d 'Log format of the long-running commands (speaker run, ndn publisher|moderator, rtr serve, bgpsec feed; default text); given, any command logs so' -r -f -a "text\t'tracing-subscriber\'s human format: `TIME LEVEL TARGET: MESSAGE field=value …`'
json\t'One JSON object a line: `timestamp`, `level`, `fields` (`message`, `event`, …), `target`'"
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from inspect" -l log-level -d 'Which events to log, in RUST_LOG\'s syntax: a level (error, warn, info, debug, trace) and per-module levels, e.g. "info,hopsig_bgp::speaker::session=debug". Default: RUST_LOG for the long-running commands, else info' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from inspect" -l json -d 'One JSON object per UPDATE, one per line, then a trailer line with the metadata and counts (JSON lines)'
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from inspect" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from feed" -l mrt -d 'The MRT file (BGP4MP UPDATEs; plain, gzip, bzip2, xz or zstd)' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from feed" -l peer -d 'The router under test' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from feed" -l local-address -d 'Local address of the feed session (the router tells neighbours apart by it)' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from feed" -l local-as -d 'The feed\'s AS' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from feed" -l remote-as -d 'The router\'s AS' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from feed" -l from-as -d 'Take only the records whose peer is this AS [default: --local-as with --bgpsec (RFC 8205 §5.2 check 2), every record otherwise]' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from feed" -l next-hop -d 'Next hop to announce [default: --local-address, else the recorded one]' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from feed" -l limit -d 'Send the first N UPDATEs only' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from feed" -l watch -d 'A receiving session to the router (repeatable, each with --watch-as and --watch-address in the same order)' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from feed" -l watch-as -d 'The AS of each --watch session' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from feed" -l watch-address -d 'Local address of each --watch session' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from feed" -l rate -d 'UPDATEs per second [default: as fast as the router takes them]' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from feed" -l timing -d '`trace`: the MRT timestamps\' spacing' -r -f -a "trace\t''"
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from feed" -l speedup -d 'With --timing trace: this many times faster' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from feed" -l faults -d 'Faults to inject: names, `bgpsec`, `rfc7606` or `all`, comma-separated (docs/spec/feed.md lists them)' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from feed" -l fault-rate -d 'Fraction of the UPDATEs that get a fault' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from feed" -l seed -d 'Seed of the fault choice' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from feed" -l keys -d 'sign-mrt\'s key folder: the feed AS\'s key (AS<N>.key) for wrong_target_as' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from feed" -l suite -d 'Suite of the keys and of expired_key\'s fresh key' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from feed" -l expired-key-json -d 'Write expired_key\'s key here as rpki-client JSON with an `expires` in the past (for the router\'s RPKI data)' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from feed" -l status -d 'The router\'s status file (a hopsig speaker\'s state_file): time until all validated' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from feed" -l router-pid -d 'The router\'s process id: its peak memory (VmHWM) in the report' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from feed" -l hold-time -d 'Hold Time offered (seconds)' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from feed" -l connect-timeout -d 'Longest wait for the sessions to come up (seconds)' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from feed" -l wait -d 'Longest wait, after the last UPDATE, for everything forwarded / validated (s)' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from feed" -l settle -d 'Wait after that before the faults are observed (s)' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from feed" -l json -d 'The JSON report' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from feed" -l log-format -d 'Log format of the long-running commands (speaker run, ndn publisher|moderator, rtr serve, bgpsec feed; default text); given, any command logs so' -r -f -a "text\t'tracing-subscriber\'s human format: `TIME LEVEL TARGET: MESSAGE field=value …`'
json\t'One JSON object a line: `timestamp`, `level`, `fields` (`message`, `event`, …), `target`'"
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from feed" -l log-level -d 'Which events to log, in RUST_LOG\'s syntax: a level (error, warn, info, debug, trace) and per-module levels, e.g. "info,hopsig_bgp::speaker::session=debug". Default: RUST_LOG for the long-running commands, else info' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from feed" -l bgpsec -d 'Negotiate BGPsec and send the signed UPDATEs as they are (else their AS_PATH equivalent, RFC 8205 §4.4)'
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from feed" -l watch-bgpsec -d 'Ask the watchers for BGPsec too'
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from feed" -l force -d 'Replace REPORT if it exists'
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from feed" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from help" -f -a "keygen" -d 'Generate a BGPsec router key for an AS'
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from help" -f -a "keys" -d 'List the router keys of an rpki-client JSON file or a keys folder'
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from help" -f -a "sign-mrt" -d 'Sign every announcement of an MRT file as the BGPsec UPDATE its AS path would carry'
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from help" -f -a "validate-mrt" -d 'Validate every BGPsec UPDATE of an MRT file, on every core'
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from help" -f -a "inspect" -d 'Print UPDATEs as bgpkit-parser does, with their Secure_Path and signatures'
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from help" -f -a "feed" -d 'Replay an MRT file\'s UPDATEs into a router under test, with fault injection'
complete -c hopsig -n "__fish_hopsig_using_subcommand bgpsec; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c hopsig -n "__fish_hopsig_using_subcommand replay" -l schemes -d 'Comma-separated schemes: none, bgpsec-ecdsa, bgr, kc-rsa, kc-mt, hybrid' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand replay" -l peer -d 'The peer: its AS number, `median` (the peer with the median announcement rate) or `busiest` (the most announcements; in a RIB dump, the largest table)' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand replay" -l mode -d 'Mode drawn in Fig. 5 (both are simulated from the same measurements)' -r -f -a "lazy\t'Sign and forward at once, validate afterwards'
strict\t'Validate, then sign and forward'"
complete -c hopsig -n "__fish_hopsig_using_subcommand replay" -l threads -d 'Servers of the queue (router threads)' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand replay" -l speedup -d 'Divide the trace\'s arrival times by this (> 0)' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand replay" -l limit -d 'Replay only the peer\'s first N announcements' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand replay" -l batch -d 'BGPsec routers validate N consecutive announcements in one cross-UPDATE batch, each charged its share of the batch\'s time (the cost when N UPDATEs wait; a session reset). 1: each validated alone, on arrival' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand replay" -l rib -d 'RIB dump for Table VI (signature memory); not printed without it' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand replay" -l json -d 'Write the results as JSON (docs/spec/replay.md)' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand replay" -l out -d 'Folder for Fig. 5\'s SVG panels (one per scheme)' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand replay" -l rtr -d 'An RPKI cache whose router keys join the validating router\'s key table (HOST:PORT, one Reset Query; repeatable); the replayed paths are signed with generated keys, which stay in the table' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand replay" -l log-format -d 'Log format of the long-running commands (speaker run, ndn publisher|moderator, rtr serve, bgpsec feed; default text); given, any command logs so' -r -f -a "text\t'tracing-subscriber\'s human format: `TIME LEVEL TARGET: MESSAGE field=value …`'
json\t'One JSON object a line: `timestamp`, `level`, `fields` (`message`, `event`, …), `target`'"
complete -c hopsig -n "__fish_hopsig_using_subcommand replay" -l log-level -d 'Which events to log, in RUST_LOG\'s syntax: a level (error, warn, info, debug, trace) and per-module levels, e.g. "info,hopsig_bgp::speaker::session=debug". Default: RUST_LOG for the long-running commands, else info' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand replay" -l force -d 'Overwrite earlier output files'
complete -c hopsig -n "__fish_hopsig_using_subcommand replay" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hopsig -n "__fish_hopsig_using_subcommand reproduce" -l out -d 'Output folder for report.md, table1.json and SVG plots' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand reproduce" -l data -d 'The data folder: the RIPE RIS update file and RIB dump under mrt/ (KC-x Tables III–VI, Fig. 5)' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand reproduce" -l log-format -d 'Log format of the long-running commands (speaker run, ndn publisher|moderator, rtr serve, bgpsec feed; default text); given, any command logs so' -r -f -a "text\t'tracing-subscriber\'s human format: `TIME LEVEL TARGET: MESSAGE field=value …`'
json\t'One JSON object a line: `timestamp`, `level`, `fields` (`message`, `event`, …), `target`'"
complete -c hopsig -n "__fish_hopsig_using_subcommand reproduce" -l log-level -d 'Which events to log, in RUST_LOG\'s syntax: a level (error, warn, info, debug, trace) and per-module levels, e.g. "info,hopsig_bgp::speaker::session=debug". Default: RUST_LOG for the long-running commands, else info' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand reproduce" -l quick -d 'Fewer n values and shorter measurements'
complete -c hopsig -n "__fish_hopsig_using_subcommand reproduce" -l force -d 'Overwrite an earlier report in that folder'
complete -c hopsig -n "__fish_hopsig_using_subcommand reproduce" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hopsig -n "__fish_hopsig_using_subcommand speaker; and not __fish_seen_subcommand_from run status refresh show reload help" -l log-format -d 'Log format of the long-running commands (speaker run, ndn publisher|moderator, rtr serve, bgpsec feed; default text); given, any command logs so' -r -f -a "text\t'tracing-subscriber\'s human format: `TIME LEVEL TARGET: MESSAGE field=value …`'
json\t'One JSON object a line: `timestamp`, `level`, `fields` (`message`, `event`, …), `target`'"
complete -c hopsig -n "__fish_hopsig_using_subcommand speaker; and not __fish_seen_subcommand_from run status refresh show reload help" -l log-level -d 'Which events to log, in RUST_LOG\'s syntax: a level (error, warn, info, debug, trace) and per-module levels, e.g. "info,hopsig_bgp::speaker::session=debug". Default: RUST_LOG for the long-running commands, else info' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand speaker; and not __fish_seen_subcommand_from run status refresh show reload help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hopsig -n "__fish_hopsig_using_subcommand speaker; and not __fish_seen_subcommand_from run status refresh show reload help" -f -a "run" -d 'Run the speaker of CONFIG (TOML; docs/spec/speaker.md) until stopped'
complete -c hopsig -n "__fish_hopsig_using_subcommand speaker; and not __fish_seen_subcommand_from run status refresh show reload help" -f -a "status" -d 'Show the sessions and routes of the speaker of CONFIG, from its state file'
complete -c hopsig -n "__fish_hopsig_using_subcommand speaker; and not __fish_seen_subcommand_from run status refresh show reload help" -f -a "refresh" -d 'Ask the running speaker of CONFIG to request a route refresh (RFC 2918) from NEIGHBOR: it sends a ROUTE-REFRESH within half a second'
complete -c hopsig -n "__fish_hopsig_using_subcommand speaker; and not __fish_seen_subcommand_from run status refresh show reload help" -f -a "show" -d 'Ask the running speaker of CONFIG through its read-only HTTP API ([http] listen): neighbours, routes received and sent, Not Valid routes, the RPKI view'
complete -c hopsig -n "__fish_hopsig_using_subcommand speaker; and not __fish_seen_subcommand_from run status refresh show reload help" -f -a "reload" -d 'Ask the running speaker of CONFIG to read CONFIG again and apply it without a restart (as SIGHUP does; docs/guide/reload.md): waits for its answer and prints what changed; exit 2 if the new configuration is refused (the running one stays) or the speaker does not answer'
complete -c hopsig -n "__fish_hopsig_using_subcommand speaker; and not __fish_seen_subcommand_from run status refresh show reload help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c hopsig -n "__fish_hopsig_using_subcommand speaker; and __fish_seen_subcommand_from run" -l log-format -d 'Log format of the long-running commands (speaker run, ndn publisher|moderator, rtr serve, bgpsec feed; default text); given, any command logs so' -r -f -a "text\t'tracing-subscriber\'s human format: `TIME LEVEL TARGET: MESSAGE field=value …`'
json\t'One JSON object a line: `timestamp`, `level`, `fields` (`message`, `event`, …), `target`'"
complete -c hopsig -n "__fish_hopsig_using_subcommand speaker; and __fish_seen_subcommand_from run" -l log-level -d 'Which events to log, in RUST_LOG\'s syntax: a level (error, warn, info, debug, trace) and per-module levels, e.g. "info,hopsig_bgp::speaker::session=debug". Default: RUST_LOG for the long-running commands, else info' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand speaker; and __fish_seen_subcommand_from run" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hopsig -n "__fish_hopsig_using_subcommand speaker; and __fish_seen_subcommand_from status" -l log-format -d 'Log format of the long-running commands (speaker run, ndn publisher|moderator, rtr serve, bgpsec feed; default text); given, any command logs so' -r -f -a "text\t'tracing-subscriber\'s human format: `TIME LEVEL TARGET: MESSAGE field=value …`'
json\t'One JSON object a line: `timestamp`, `level`, `fields` (`message`, `event`, …), `target`'"
complete -c hopsig -n "__fish_hopsig_using_subcommand speaker; and __fish_seen_subcommand_from status" -l log-level -d 'Which events to log, in RUST_LOG\'s syntax: a level (error, warn, info, debug, trace) and per-module levels, e.g. "info,hopsig_bgp::speaker::session=debug". Default: RUST_LOG for the long-running commands, else info' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand speaker; and __fish_seen_subcommand_from status" -l json -d 'Print the whole status file (JSON) instead of a summary'
complete -c hopsig -n "__fish_hopsig_using_subcommand speaker; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hopsig -n "__fish_hopsig_using_subcommand speaker; and __fish_seen_subcommand_from refresh" -l log-format -d 'Log format of the long-running commands (speaker run, ndn publisher|moderator, rtr serve, bgpsec feed; default text); given, any command logs so' -r -f -a "text\t'tracing-subscriber\'s human format: `TIME LEVEL TARGET: MESSAGE field=value …`'
json\t'One JSON object a line: `timestamp`, `level`, `fields` (`message`, `event`, …), `target`'"
complete -c hopsig -n "__fish_hopsig_using_subcommand speaker; and __fish_seen_subcommand_from refresh" -l log-level -d 'Which events to log, in RUST_LOG\'s syntax: a level (error, warn, info, debug, trace) and per-module levels, e.g. "info,hopsig_bgp::speaker::session=debug". Default: RUST_LOG for the long-running commands, else info' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand speaker; and __fish_seen_subcommand_from refresh" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hopsig -n "__fish_hopsig_using_subcommand speaker; and __fish_seen_subcommand_from show" -l log-format -d 'Log format of the long-running commands (speaker run, ndn publisher|moderator, rtr serve, bgpsec feed; default text); given, any command logs so' -r -f -a "text\t'tracing-subscriber\'s human format: `TIME LEVEL TARGET: MESSAGE field=value …`'
json\t'One JSON object a line: `timestamp`, `level`, `fields` (`message`, `event`, …), `target`'"
complete -c hopsig -n "__fish_hopsig_using_subcommand speaker; and __fish_seen_subcommand_from show" -l log-level -d 'Which events to log, in RUST_LOG\'s syntax: a level (error, warn, info, debug, trace) and per-module levels, e.g. "info,hopsig_bgp::speaker::session=debug". Default: RUST_LOG for the long-running commands, else info' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand speaker; and __fish_seen_subcommand_from show" -l json -d 'Print the API\'s JSON (one line per route for the route lists) instead of a table'
complete -c hopsig -n "__fish_hopsig_using_subcommand speaker; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hopsig -n "__fish_hopsig_using_subcommand speaker; and __fish_seen_subcommand_from show" -a "neighbors" -d 'Every neighbour: address, AS, session state, UPDATEs in and out, prefixes accepted'
complete -c hopsig -n "__fish_hopsig_using_subcommand speaker; and __fish_seen_subcommand_from show" -a "neighbor" -d 'One neighbour, with the sizes of its Adj-RIB-In and Adj-RIB-Out'
complete -c hopsig -n "__fish_hopsig_using_subcommand speaker; and __fish_seen_subcommand_from show" -a "rib-in" -d 'The routes received (Adj-RIB-In) with their BGPsec, ROV and ASPA verdicts'
complete -c hopsig -n "__fish_hopsig_using_subcommand speaker; and __fish_seen_subcommand_from show" -a "rib-out" -d 'The routes sent to a neighbour (its Adj-RIB-Out)'
complete -c hopsig -n "__fish_hopsig_using_subcommand speaker; and __fish_seen_subcommand_from show" -a "not-valid" -d 'The routes found Not Valid and withdrawn (lazy mode), with why'
complete -c hopsig -n "__fish_hopsig_using_subcommand speaker; and __fish_seen_subcommand_from show" -a "rpki" -d 'The RPKI view in force and the state of each RTR cache'
complete -c hopsig -n "__fish_hopsig_using_subcommand speaker; and __fish_seen_subcommand_from show" -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c hopsig -n "__fish_hopsig_using_subcommand speaker; and __fish_seen_subcommand_from reload" -l wait -d 'Seconds to wait for the speaker\'s answer' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand speaker; and __fish_seen_subcommand_from reload" -l log-format -d 'Log format of the long-running commands (speaker run, ndn publisher|moderator, rtr serve, bgpsec feed; default text); given, any command logs so' -r -f -a "text\t'tracing-subscriber\'s human format: `TIME LEVEL TARGET: MESSAGE field=value …`'
json\t'One JSON object a line: `timestamp`, `level`, `fields` (`message`, `event`, …), `target`'"
complete -c hopsig -n "__fish_hopsig_using_subcommand speaker; and __fish_seen_subcommand_from reload" -l log-level -d 'Which events to log, in RUST_LOG\'s syntax: a level (error, warn, info, debug, trace) and per-module levels, e.g. "info,hopsig_bgp::speaker::session=debug". Default: RUST_LOG for the long-running commands, else info' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand speaker; and __fish_seen_subcommand_from reload" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hopsig -n "__fish_hopsig_using_subcommand speaker; and __fish_seen_subcommand_from help" -f -a "run" -d 'Run the speaker of CONFIG (TOML; docs/spec/speaker.md) until stopped'
complete -c hopsig -n "__fish_hopsig_using_subcommand speaker; and __fish_seen_subcommand_from help" -f -a "status" -d 'Show the sessions and routes of the speaker of CONFIG, from its state file'
complete -c hopsig -n "__fish_hopsig_using_subcommand speaker; and __fish_seen_subcommand_from help" -f -a "refresh" -d 'Ask the running speaker of CONFIG to request a route refresh (RFC 2918) from NEIGHBOR: it sends a ROUTE-REFRESH within half a second'
complete -c hopsig -n "__fish_hopsig_using_subcommand speaker; and __fish_seen_subcommand_from help" -f -a "show" -d 'Ask the running speaker of CONFIG through its read-only HTTP API ([http] listen): neighbours, routes received and sent, Not Valid routes, the RPKI view'
complete -c hopsig -n "__fish_hopsig_using_subcommand speaker; and __fish_seen_subcommand_from help" -f -a "reload" -d 'Ask the running speaker of CONFIG to read CONFIG again and apply it without a restart (as SIGHUP does; docs/guide/reload.md): waits for its answer and prints what changed; exit 2 if the new configuration is refused (the running one stays) or the speaker does not answer'
complete -c hopsig -n "__fish_hopsig_using_subcommand speaker; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c hopsig -n "__fish_hopsig_using_subcommand ndn; and not __fish_seen_subcommand_from publisher moderator subscriber help" -l log-format -d 'Log format of the long-running commands (speaker run, ndn publisher|moderator, rtr serve, bgpsec feed; default text); given, any command logs so' -r -f -a "text\t'tracing-subscriber\'s human format: `TIME LEVEL TARGET: MESSAGE field=value …`'
json\t'One JSON object a line: `timestamp`, `level`, `fields` (`message`, `event`, …), `target`'"
complete -c hopsig -n "__fish_hopsig_using_subcommand ndn; and not __fish_seen_subcommand_from publisher moderator subscriber help" -l log-level -d 'Which events to log, in RUST_LOG\'s syntax: a level (error, warn, info, debug, trace) and per-module levels, e.g. "info,hopsig_bgp::speaker::session=debug". Default: RUST_LOG for the long-running commands, else info' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand ndn; and not __fish_seen_subcommand_from publisher moderator subscriber help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hopsig -n "__fish_hopsig_using_subcommand ndn; and not __fish_seen_subcommand_from publisher moderator subscriber help" -f -a "publisher" -d 'Publish a message: answer the moderator\'s Interests (2) with Data (3)'
complete -c hopsig -n "__fish_hopsig_using_subcommand ndn; and not __fish_seen_subcommand_from publisher moderator subscriber help" -f -a "moderator" -d 'Moderate: answer Interests (1) with Data (4) built from the publisher\'s (3)'
complete -c hopsig -n "__fish_hopsig_using_subcommand ndn; and not __fish_seen_subcommand_from publisher moderator subscriber help" -f -a "subscriber" -d 'Fetch and verify the moderator\'s Data (4); print the message'
complete -c hopsig -n "__fish_hopsig_using_subcommand ndn; and not __fish_seen_subcommand_from publisher moderator subscriber help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c hopsig -n "__fish_hopsig_using_subcommand ndn; and __fish_seen_subcommand_from publisher" -l forwarder -d 'The forwarder: unix:///PATH or tcp://HOST:PORT [default: $NDN_CLIENT_TRANSPORT, else unix:///run/nfd/nfd.sock]' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand ndn; and __fish_seen_subcommand_from publisher" -l scheme -d 'Signature scheme' -r -f -a "ibas\t'Gentry–Ramzan IBAS on BLS12-381 (keys from `hopsig pkg`)'
rsa\t'SignatureSha256WithRsa (keys from `hopsig keygen --scheme rsa2048-concat`, or PEM)'
ecdsa\t'SignatureSha256WithEcdsa (keys from `hopsig keygen --scheme ecdsa-p256-concat`, or PEM)'"
complete -c hopsig -n "__fish_hopsig_using_subcommand ndn; and __fish_seen_subcommand_from publisher" -l key -d 'Secret key: an IBAS user key file (`hopsig pkg extract`), or an RSA / ECDSA private key (hopsig key file or PEM)' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand ndn; and __fish_seen_subcommand_from publisher" -l journal -d 'IBAS: the journal of state strings w this key signed under (a reused w is refused). It must exist unless --new-journal is given' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand ndn; and __fish_seen_subcommand_from publisher" -l id -d 'The publisher\'s identity, a two-component name (e.g. /wonderland/Alice)' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand ndn; and __fish_seen_subcommand_from publisher" -l message -d 'The message file' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand ndn; and __fish_seen_subcommand_from publisher" -l seq -d 'The message\'s sequence number' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand ndn; and __fish_seen_subcommand_from publisher" -l count -d 'Stop after answering this many Interests [default: run until stopped]' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand ndn; and __fish_seen_subcommand_from publisher" -l log-format -d 'Log format of the long-running commands (speaker run, ndn publisher|moderator, rtr serve, bgpsec feed; default text); given, any command logs so' -r -f -a "text\t'tracing-subscriber\'s human format: `TIME LEVEL TARGET: MESSAGE field=value …`'
json\t'One JSON object a line: `timestamp`, `level`, `fields` (`message`, `event`, …), `target`'"
complete -c hopsig -n "__fish_hopsig_using_subcommand ndn; and __fish_seen_subcommand_from publisher" -l log-level -d 'Which events to log, in RUST_LOG\'s syntax: a level (error, warn, info, debug, trace) and per-module levels, e.g. "info,hopsig_bgp::speaker::session=debug". Default: RUST_LOG for the long-running commands, else info' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand ndn; and __fish_seen_subcommand_from publisher" -l new-journal -d 'IBAS: start the journal if there is none (only for a key that never signed elsewhere)'
complete -c hopsig -n "__fish_hopsig_using_subcommand ndn; and __fish_seen_subcommand_from publisher" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hopsig -n "__fish_hopsig_using_subcommand ndn; and __fish_seen_subcommand_from moderator" -l forwarder -d 'The forwarder: unix:///PATH or tcp://HOST:PORT [default: $NDN_CLIENT_TRANSPORT, else unix:///run/nfd/nfd.sock]' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand ndn; and __fish_seen_subcommand_from moderator" -l scheme -d 'Signature scheme' -r -f -a "ibas\t'Gentry–Ramzan IBAS on BLS12-381 (keys from `hopsig pkg`)'
rsa\t'SignatureSha256WithRsa (keys from `hopsig keygen --scheme rsa2048-concat`, or PEM)'
ecdsa\t'SignatureSha256WithEcdsa (keys from `hopsig keygen --scheme ecdsa-p256-concat`, or PEM)'"
complete -c hopsig -n "__fish_hopsig_using_subcommand ndn; and __fish_seen_subcommand_from moderator" -l key -d 'Secret key: an IBAS user key file (`hopsig pkg extract`), or an RSA / ECDSA private key (hopsig key file or PEM)' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand ndn; and __fish_seen_subcommand_from moderator" -l journal -d 'IBAS: the journal of state strings w this key signed under (a reused w is refused). It must exist unless --new-journal is given' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand ndn; and __fish_seen_subcommand_from moderator" -l params -d 'IBAS: the PKG\'s public parameters (`params.pub` of `hopsig pkg setup`)' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand ndn; and __fish_seen_subcommand_from moderator" -l trust -d 'RSA / ECDSA: the public key of an identity, ID=FILE (repeatable)' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand ndn; and __fish_seen_subcommand_from moderator" -l id -d 'The moderator\'s identity, a two-component name (e.g. /moderators/Government)' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand ndn; and __fish_seen_subcommand_from moderator" -l count -d 'Stop after answering this many Interests [default: run until stopped]' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand ndn; and __fish_seen_subcommand_from moderator" -l log-format -d 'Log format of the long-running commands (speaker run, ndn publisher|moderator, rtr serve, bgpsec feed; default text); given, any command logs so' -r -f -a "text\t'tracing-subscriber\'s human format: `TIME LEVEL TARGET: MESSAGE field=value …`'
json\t'One JSON object a line: `timestamp`, `level`, `fields` (`message`, `event`, …), `target`'"
complete -c hopsig -n "__fish_hopsig_using_subcommand ndn; and __fish_seen_subcommand_from moderator" -l log-level -d 'Which events to log, in RUST_LOG\'s syntax: a level (error, warn, info, debug, trace) and per-module levels, e.g. "info,hopsig_bgp::speaker::session=debug". Default: RUST_LOG for the long-running commands, else info' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand ndn; and __fish_seen_subcommand_from moderator" -l new-journal -d 'IBAS: start the journal if there is none (only for a key that never signed elsewhere)'
complete -c hopsig -n "__fish_hopsig_using_subcommand ndn; and __fish_seen_subcommand_from moderator" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hopsig -n "__fish_hopsig_using_subcommand ndn; and __fish_seen_subcommand_from subscriber" -l forwarder -d 'The forwarder: unix:///PATH or tcp://HOST:PORT [default: $NDN_CLIENT_TRANSPORT, else unix:///run/nfd/nfd.sock]' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand ndn; and __fish_seen_subcommand_from subscriber" -l scheme -d 'Signature scheme' -r -f -a "ibas\t'Gentry–Ramzan IBAS on BLS12-381 (keys from `hopsig pkg`)'
rsa\t'SignatureSha256WithRsa (keys from `hopsig keygen --scheme rsa2048-concat`, or PEM)'
ecdsa\t'SignatureSha256WithEcdsa (keys from `hopsig keygen --scheme ecdsa-p256-concat`, or PEM)'"
complete -c hopsig -n "__fish_hopsig_using_subcommand ndn; and __fish_seen_subcommand_from subscriber" -l params -d 'IBAS: the PKG\'s public parameters (`params.pub` of `hopsig pkg setup`)' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand ndn; and __fish_seen_subcommand_from subscriber" -l trust -d 'RSA / ECDSA: the public key of an identity, ID=FILE (repeatable)' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand ndn; and __fish_seen_subcommand_from subscriber" -l moderator -d 'The moderator to ask' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand ndn; and __fish_seen_subcommand_from subscriber" -l publisher -d 'The publisher whose message to get' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand ndn; and __fish_seen_subcommand_from subscriber" -l state-dir -d 'IBAS: folder of the replay memory, the state strings w accepted so far with their messages (file ndn-seen-w.log; default $HOPSIG_STATE_DIR, else $XDG_STATE_HOME/hopsig, else ~/.local/state/hopsig). A second message under a w accepted before, in this run or an earlier one, is refused' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand ndn; and __fish_seen_subcommand_from subscriber" -l log-format -d 'Log format of the long-running commands (speaker run, ndn publisher|moderator, rtr serve, bgpsec feed; default text); given, any command logs so' -r -f -a "text\t'tracing-subscriber\'s human format: `TIME LEVEL TARGET: MESSAGE field=value …`'
json\t'One JSON object a line: `timestamp`, `level`, `fields` (`message`, `event`, …), `target`'"
complete -c hopsig -n "__fish_hopsig_using_subcommand ndn; and __fish_seen_subcommand_from subscriber" -l log-level -d 'Which events to log, in RUST_LOG\'s syntax: a level (error, warn, info, debug, trace) and per-module levels, e.g. "info,hopsig_bgp::speaker::session=debug". Default: RUST_LOG for the long-running commands, else info' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand ndn; and __fish_seen_subcommand_from subscriber" -l json -d 'Print the result as JSON'
complete -c hopsig -n "__fish_hopsig_using_subcommand ndn; and __fish_seen_subcommand_from subscriber" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hopsig -n "__fish_hopsig_using_subcommand ndn; and __fish_seen_subcommand_from help" -f -a "publisher" -d 'Publish a message: answer the moderator\'s Interests (2) with Data (3)'
complete -c hopsig -n "__fish_hopsig_using_subcommand ndn; and __fish_seen_subcommand_from help" -f -a "moderator" -d 'Moderate: answer Interests (1) with Data (4) built from the publisher\'s (3)'
complete -c hopsig -n "__fish_hopsig_using_subcommand ndn; and __fish_seen_subcommand_from help" -f -a "subscriber" -d 'Fetch and verify the moderator\'s Data (4); print the message'
complete -c hopsig -n "__fish_hopsig_using_subcommand ndn; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c hopsig -n "__fish_hopsig_using_subcommand pla; and not __fish_seen_subcommand_from sign-pcap verify-pcap help" -l log-format -d 'Log format of the long-running commands (speaker run, ndn publisher|moderator, rtr serve, bgpsec feed; default text); given, any command logs so' -r -f -a "text\t'tracing-subscriber\'s human format: `TIME LEVEL TARGET: MESSAGE field=value …`'
json\t'One JSON object a line: `timestamp`, `level`, `fields` (`message`, `event`, …), `target`'"
complete -c hopsig -n "__fish_hopsig_using_subcommand pla; and not __fish_seen_subcommand_from sign-pcap verify-pcap help" -l log-level -d 'Which events to log, in RUST_LOG\'s syntax: a level (error, warn, info, debug, trace) and per-module levels, e.g. "info,hopsig_bgp::speaker::session=debug". Default: RUST_LOG for the long-running commands, else info' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand pla; and not __fish_seen_subcommand_from sign-pcap verify-pcap help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hopsig -n "__fish_hopsig_using_subcommand pla; and not __fish_seen_subcommand_from sign-pcap verify-pcap help" -f -a "sign-pcap" -d 'Sign every IPv6 packet of a capture, as its sending host would'
complete -c hopsig -n "__fish_hopsig_using_subcommand pla; and not __fish_seen_subcommand_from sign-pcap verify-pcap help" -f -a "verify-pcap" -d 'Check every packet of a capture, as a PLA router on the path would'
complete -c hopsig -n "__fish_hopsig_using_subcommand pla; and not __fish_seen_subcommand_from sign-pcap verify-pcap help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c hopsig -n "__fish_hopsig_using_subcommand pla; and __fish_seen_subcommand_from sign-pcap" -l key -d 'The sending host\'s key: an ecdsa-k163/k233/k283 key file (`hopsig ic finalize`)' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand pla; and __fish_seen_subcommand_from sign-pcap" -l cert -d 'Its certificate [default: KEY.cert]: an implicit certificate (`hopsig ic finalize`; only packets from the address it was issued on are signed) or a key certificate (`hopsig ic certify-key`; every packet is signed)' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand pla; and __fish_seen_subcommand_from sign-pcap" -l enroll -d 'Instead of one key: a TTP folder (`hopsig ic ttp`); every IPv6 source address of the capture is enrolled with this TTP on the fly (a fresh key and its certificate per host, nothing written), so every host signs its own packets' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand pla; and __fish_seen_subcommand_from sign-pcap" -l layout -d 'With --enroll: how each host\'s key travels' -r -f -a "implicit\t'An implicit certificate on the source address (003 §II-C; 77 octets on K-163)'
certificate\t'The public key with the TTP\'s signature on it (119 octets on K-163)'"
complete -c hopsig -n "__fish_hopsig_using_subcommand pla; and __fish_seen_subcommand_from sign-pcap" -l ttp-id -d 'The TTP id written in the headers' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand pla; and __fish_seen_subcommand_from sign-pcap" -l log-format -d 'Log format of the long-running commands (speaker run, ndn publisher|moderator, rtr serve, bgpsec feed; default text); given, any command logs so' -r -f -a "text\t'tracing-subscriber\'s human format: `TIME LEVEL TARGET: MESSAGE field=value …`'
json\t'One JSON object a line: `timestamp`, `level`, `fields` (`message`, `event`, …), `target`'"
complete -c hopsig -n "__fish_hopsig_using_subcommand pla; and __fish_seen_subcommand_from sign-pcap" -l log-level -d 'Which events to log, in RUST_LOG\'s syntax: a level (error, warn, info, debug, trace) and per-module levels, e.g. "info,hopsig_bgp::speaker::session=debug". Default: RUST_LOG for the long-running commands, else info' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand pla; and __fish_seen_subcommand_from sign-pcap" -l force -d 'Replace OUT if it exists'
complete -c hopsig -n "__fish_hopsig_using_subcommand pla; and __fish_seen_subcommand_from sign-pcap" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hopsig -n "__fish_hopsig_using_subcommand pla; and __fish_seen_subcommand_from verify-pcap" -l ttp-pub -d 'The TTP\'s public key (`DIR/ttp.pub` of `hopsig ic ttp`); it names the curve' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand pla; and __fish_seen_subcommand_from verify-pcap" -l ttp-id -d 'The TTP\'s id in the headers' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand pla; and __fish_seen_subcommand_from verify-pcap" -l threads -d 'Checking threads [default: every core]' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand pla; and __fish_seen_subcommand_from verify-pcap" -l out -d 'Write the accepted packets (and the frames not checked, unless --accepted-only) to this capture (FILE\'s format), in capture order' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand pla; and __fish_seen_subcommand_from verify-pcap" -l now -d 'Check against this Unix time instead of each frame\'s capture time' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand pla; and __fish_seen_subcommand_from verify-pcap" -l max-age -d 'Seconds after which a timestamp is stale' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand pla; and __fish_seen_subcommand_from verify-pcap" -l skew -d 'Seconds a timestamp may be ahead of the clock' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand pla; and __fish_seen_subcommand_from verify-pcap" -l max-sources -d 'Most (TTP, source) entries in the replay table' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand pla; and __fish_seen_subcommand_from verify-pcap" -l json -d 'Also write the summary as JSON to this file' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand pla; and __fish_seen_subcommand_from verify-pcap" -l log-format -d 'Log format of the long-running commands (speaker run, ndn publisher|moderator, rtr serve, bgpsec feed; default text); given, any command logs so' -r -f -a "text\t'tracing-subscriber\'s human format: `TIME LEVEL TARGET: MESSAGE field=value …`'
json\t'One JSON object a line: `timestamp`, `level`, `fields` (`message`, `event`, …), `target`'"
complete -c hopsig -n "__fish_hopsig_using_subcommand pla; and __fish_seen_subcommand_from verify-pcap" -l log-level -d 'Which events to log, in RUST_LOG\'s syntax: a level (error, warn, info, debug, trace) and per-module levels, e.g. "info,hopsig_bgp::speaker::session=debug". Default: RUST_LOG for the long-running commands, else info' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand pla; and __fish_seen_subcommand_from verify-pcap" -l accepted-only -d 'With --out: leave out the frames not checked too (a strict PLA router)'
complete -c hopsig -n "__fish_hopsig_using_subcommand pla; and __fish_seen_subcommand_from verify-pcap" -l force -d 'Replace --out / --json files if they exist'
complete -c hopsig -n "__fish_hopsig_using_subcommand pla; and __fish_seen_subcommand_from verify-pcap" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hopsig -n "__fish_hopsig_using_subcommand pla; and __fish_seen_subcommand_from help" -f -a "sign-pcap" -d 'Sign every IPv6 packet of a capture, as its sending host would'
complete -c hopsig -n "__fish_hopsig_using_subcommand pla; and __fish_seen_subcommand_from help" -f -a "verify-pcap" -d 'Check every packet of a capture, as a PLA router on the path would'
complete -c hopsig -n "__fish_hopsig_using_subcommand pla; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c hopsig -n "__fish_hopsig_using_subcommand rtr; and not __fish_seen_subcommand_from dump serve help" -l log-format -d 'Log format of the long-running commands (speaker run, ndn publisher|moderator, rtr serve, bgpsec feed; default text); given, any command logs so' -r -f -a "text\t'tracing-subscriber\'s human format: `TIME LEVEL TARGET: MESSAGE field=value …`'
json\t'One JSON object a line: `timestamp`, `level`, `fields` (`message`, `event`, …), `target`'"
complete -c hopsig -n "__fish_hopsig_using_subcommand rtr; and not __fish_seen_subcommand_from dump serve help" -l log-level -d 'Which events to log, in RUST_LOG\'s syntax: a level (error, warn, info, debug, trace) and per-module levels, e.g. "info,hopsig_bgp::speaker::session=debug". Default: RUST_LOG for the long-running commands, else info' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand rtr; and not __fish_seen_subcommand_from dump serve help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hopsig -n "__fish_hopsig_using_subcommand rtr; and not __fish_seen_subcommand_from dump serve help" -f -a "dump" -d 'Connect to the cache at HOST:PORT, send one Reset Query and print what it serves up to End of Data: counts, every router key (ASN, SKI, key algorithm), VRPs and ASPAs. Protocol errors name the PDU and the error code'
complete -c hopsig -n "__fish_hopsig_using_subcommand rtr; and not __fish_seen_subcommand_from dump serve help" -f -a "serve" -d 'Serve RPKI files as an RTR cache (versions 0-2): rpki-client JSON (roas, bgpsec_keys, aspas), Routinator jsonext (routerKeys), hopsig key folders, SLURM (RFC 8416, applied to the others). The sources are re-read when one changes: each change is a new serial, announced to the routers with a Serial Notify'
complete -c hopsig -n "__fish_hopsig_using_subcommand rtr; and not __fish_seen_subcommand_from dump serve help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c hopsig -n "__fish_hopsig_using_subcommand rtr; and __fish_seen_subcommand_from dump" -l version -d 'Query with this version (0, 1 or 2) and do not downgrade on an Unsupported Protocol Version report; by default start at 2 and downgrade as the cache asks (RFC 8210 §7). The first line shows the version the cache answered with' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand rtr; and __fish_seen_subcommand_from dump" -l timeout -d 'Give up after this many seconds' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand rtr; and __fish_seen_subcommand_from dump" -l log-format -d 'Log format of the long-running commands (speaker run, ndn publisher|moderator, rtr serve, bgpsec feed; default text); given, any command logs so' -r -f -a "text\t'tracing-subscriber\'s human format: `TIME LEVEL TARGET: MESSAGE field=value …`'
json\t'One JSON object a line: `timestamp`, `level`, `fields` (`message`, `event`, …), `target`'"
complete -c hopsig -n "__fish_hopsig_using_subcommand rtr; and __fish_seen_subcommand_from dump" -l log-level -d 'Which events to log, in RUST_LOG\'s syntax: a level (error, warn, info, debug, trace) and per-module levels, e.g. "info,hopsig_bgp::speaker::session=debug". Default: RUST_LOG for the long-running commands, else info' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand rtr; and __fish_seen_subcommand_from dump" -l json -d 'Print JSON instead of text'
complete -c hopsig -n "__fish_hopsig_using_subcommand rtr; and __fish_seen_subcommand_from dump" -l summary -d 'Print only the first two lines (session, timers, time to End of Data; counts)'
complete -c hopsig -n "__fish_hopsig_using_subcommand rtr; and __fish_seen_subcommand_from dump" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hopsig -n "__fish_hopsig_using_subcommand rtr; and __fish_seen_subcommand_from serve" -l source -d 'A source file or key folder (several may be given)' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand rtr; and __fish_seen_subcommand_from serve" -l listen -d 'Address to listen on, e.g. 127.0.0.1:3323' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand rtr; and __fish_seen_subcommand_from serve" -l refresh -d 'Refresh Interval sent in End of Data, seconds (RFC 8210 §6: 1-86400)' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand rtr; and __fish_seen_subcommand_from serve" -l retry -d 'Retry Interval sent in End of Data, seconds (1-7200)' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand rtr; and __fish_seen_subcommand_from serve" -l expire -d 'Expire Interval sent in End of Data, seconds (600-172800)' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand rtr; and __fish_seen_subcommand_from serve" -l max-version -d 'The highest version served (0, 1 or 2); routers asking a higher one get Unsupported Protocol Version and downgrade (RFC 8210 §7)' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand rtr; and __fish_seen_subcommand_from serve" -l poll -d 'How often to look whether a source changed, seconds' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand rtr; and __fish_seen_subcommand_from serve" -l log-format -d 'Log format of the long-running commands (speaker run, ndn publisher|moderator, rtr serve, bgpsec feed; default text); given, any command logs so' -r -f -a "text\t'tracing-subscriber\'s human format: `TIME LEVEL TARGET: MESSAGE field=value …`'
json\t'One JSON object a line: `timestamp`, `level`, `fields` (`message`, `event`, …), `target`'"
complete -c hopsig -n "__fish_hopsig_using_subcommand rtr; and __fish_seen_subcommand_from serve" -l log-level -d 'Which events to log, in RUST_LOG\'s syntax: a level (error, warn, info, debug, trace) and per-module levels, e.g. "info,hopsig_bgp::speaker::session=debug". Default: RUST_LOG for the long-running commands, else info' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand rtr; and __fish_seen_subcommand_from serve" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hopsig -n "__fish_hopsig_using_subcommand rtr; and __fish_seen_subcommand_from help" -f -a "dump" -d 'Connect to the cache at HOST:PORT, send one Reset Query and print what it serves up to End of Data: counts, every router key (ASN, SKI, key algorithm), VRPs and ASPAs. Protocol errors name the PDU and the error code'
complete -c hopsig -n "__fish_hopsig_using_subcommand rtr; and __fish_seen_subcommand_from help" -f -a "serve" -d 'Serve RPKI files as an RTR cache (versions 0-2): rpki-client JSON (roas, bgpsec_keys, aspas), Routinator jsonext (routerKeys), hopsig key folders, SLURM (RFC 8416, applied to the others). The sources are re-read when one changes: each change is a new serial, announced to the routers with a Serial Notify'
complete -c hopsig -n "__fish_hopsig_using_subcommand rtr; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c hopsig -n "__fish_hopsig_using_subcommand batch; and not __fish_seen_subcommand_from validate-mrt help" -l log-format -d 'Log format of the long-running commands (speaker run, ndn publisher|moderator, rtr serve, bgpsec feed; default text); given, any command logs so' -r -f -a "text\t'tracing-subscriber\'s human format: `TIME LEVEL TARGET: MESSAGE field=value …`'
json\t'One JSON object a line: `timestamp`, `level`, `fields` (`message`, `event`, …), `target`'"
complete -c hopsig -n "__fish_hopsig_using_subcommand batch; and not __fish_seen_subcommand_from validate-mrt help" -l log-level -d 'Which events to log, in RUST_LOG\'s syntax: a level (error, warn, info, debug, trace) and per-module levels, e.g. "info,hopsig_bgp::speaker::session=debug". Default: RUST_LOG for the long-running commands, else info' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand batch; and not __fish_seen_subcommand_from validate-mrt help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hopsig -n "__fish_hopsig_using_subcommand batch; and not __fish_seen_subcommand_from validate-mrt help" -f -a "validate-mrt" -d 'Validate every BGPsec UPDATE of many MRT files, one Dask task per file'
complete -c hopsig -n "__fish_hopsig_using_subcommand batch; and not __fish_seen_subcommand_from validate-mrt help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c hopsig -n "__fish_hopsig_using_subcommand batch; and __fish_seen_subcommand_from validate-mrt" -l keys -d 'The router keys: rpki-client\'s JSON, or a folder (as `hopsig bgpsec keys`)' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand batch; and __fish_seen_subcommand_from validate-mrt" -l scheduler -d 'A Dask scheduler\'s address (tcp://HOST:8786), `local` (a cluster of --workers processes on this machine) or `sequential` (no Dask: the files in order)' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand batch; and __fish_seen_subcommand_from validate-mrt" -l workers -d 'Worker processes of a local cluster' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand batch; and __fish_seen_subcommand_from validate-mrt" -l threads-per-worker -d 'Threads of each worker of a local cluster' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand batch; and __fish_seen_subcommand_from validate-mrt" -l threads -d 'Validating threads per task [default: --threads-per-worker]' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand batch; and __fish_seen_subcommand_from validate-mrt" -l retries -d 'Runs again of a task that failed' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand batch; and __fish_seen_subcommand_from validate-mrt" -l at -d 'Use the keys valid at this time, in Unix seconds [default: now]' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand batch; and __fish_seen_subcommand_from validate-mrt" -l signature-cache -d 'Bytes of each task\'s signature cache (as validate-mrt\'s; 0 turns it off)' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand batch; and __fish_seen_subcommand_from validate-mrt" -l out -d 'Write the verdicts (file, record, bgpsec, reason, signatures, detail) as Parquet' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand batch; and __fish_seen_subcommand_from validate-mrt" -l json -d 'Write the summary as JSON' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand batch; and __fish_seen_subcommand_from validate-mrt" -l python -d 'The Python interpreter with the hopsig package [default: $HOPSIG_BATCH_PYTHON, else python3]' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand batch; and __fish_seen_subcommand_from validate-mrt" -l log-format -d 'Log format of the long-running commands (speaker run, ndn publisher|moderator, rtr serve, bgpsec feed; default text); given, any command logs so' -r -f -a "text\t'tracing-subscriber\'s human format: `TIME LEVEL TARGET: MESSAGE field=value …`'
json\t'One JSON object a line: `timestamp`, `level`, `fields` (`message`, `event`, …), `target`'"
complete -c hopsig -n "__fish_hopsig_using_subcommand batch; and __fish_seen_subcommand_from validate-mrt" -l log-level -d 'Which events to log, in RUST_LOG\'s syntax: a level (error, warn, info, debug, trace) and per-module levels, e.g. "info,hopsig_bgp::speaker::session=debug". Default: RUST_LOG for the long-running commands, else info' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand batch; and __fish_seen_subcommand_from validate-mrt" -l force -d 'Replace --out and --json if they exist'
complete -c hopsig -n "__fish_hopsig_using_subcommand batch; and __fish_seen_subcommand_from validate-mrt" -l no-progress -d 'No progress bar or dashboard address on standard error'
complete -c hopsig -n "__fish_hopsig_using_subcommand batch; and __fish_seen_subcommand_from validate-mrt" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hopsig -n "__fish_hopsig_using_subcommand batch; and __fish_seen_subcommand_from help" -f -a "validate-mrt" -d 'Validate every BGPsec UPDATE of many MRT files, one Dask task per file'
complete -c hopsig -n "__fish_hopsig_using_subcommand batch; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c hopsig -n "__fish_hopsig_using_subcommand completions" -l log-format -d 'Log format of the long-running commands (speaker run, ndn publisher|moderator, rtr serve, bgpsec feed; default text); given, any command logs so' -r -f -a "text\t'tracing-subscriber\'s human format: `TIME LEVEL TARGET: MESSAGE field=value …`'
json\t'One JSON object a line: `timestamp`, `level`, `fields` (`message`, `event`, …), `target`'"
complete -c hopsig -n "__fish_hopsig_using_subcommand completions" -l log-level -d 'Which events to log, in RUST_LOG\'s syntax: a level (error, warn, info, debug, trace) and per-module levels, e.g. "info,hopsig_bgp::speaker::session=debug". Default: RUST_LOG for the long-running commands, else info' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand completions" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hopsig -n "__fish_hopsig_using_subcommand man" -l out -d 'Write every page into this folder instead (it must exist)' -r -F
complete -c hopsig -n "__fish_hopsig_using_subcommand man" -l log-format -d 'Log format of the long-running commands (speaker run, ndn publisher|moderator, rtr serve, bgpsec feed; default text); given, any command logs so' -r -f -a "text\t'tracing-subscriber\'s human format: `TIME LEVEL TARGET: MESSAGE field=value …`'
json\t'One JSON object a line: `timestamp`, `level`, `fields` (`message`, `event`, …), `target`'"
complete -c hopsig -n "__fish_hopsig_using_subcommand man" -l log-level -d 'Which events to log, in RUST_LOG\'s syntax: a level (error, warn, info, debug, trace) and per-module levels, e.g. "info,hopsig_bgp::speaker::session=debug". Default: RUST_LOG for the long-running commands, else info' -r
complete -c hopsig -n "__fish_hopsig_using_subcommand man" -l force -d 'Replace pages that exist in DIR'
complete -c hopsig -n "__fish_hopsig_using_subcommand man" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hopsig -n "__fish_hopsig_using_subcommand help; and not __fish_seen_subcommand_from schemes keygen sign verify pkg ic kcx inspect bench bgpsec replay reproduce speaker ndn pla rtr batch completions man help" -f -a "schemes" -d 'List scheme ids with a one-line description'
complete -c hopsig -n "__fish_hopsig_using_subcommand help; and not __fish_seen_subcommand_from schemes keygen sign verify pkg ic kcx inspect bench bgpsec replay reproduce speaker ndn pla rtr batch completions man help" -f -a "keygen" -d 'Generate a key pair: secret key to FILE, public key to FILE.pub'
complete -c hopsig -n "__fish_hopsig_using_subcommand help; and not __fish_seen_subcommand_from schemes keygen sign verify pkg ic kcx inspect bench bgpsec replay reproduce speaker ndn pla rtr batch completions man help" -f -a "sign" -d 'One hop: add this signer\'s signature on its message to the aggregate so far'
complete -c hopsig -n "__fish_hopsig_using_subcommand help; and not __fish_seen_subcommand_from schemes keygen sign verify pkg ic kcx inspect bench bgpsec replay reproduce speaker ndn pla rtr batch completions man help" -f -a "verify" -d 'Verify an aggregate against ordered (public key, message) pairs, first signer first; for ibas-bls12381, (identity, message) pairs in any order under a PKG\'s parameters. Exit 0 valid, 1 invalid (it decodes but fails verification), 2 input that does not decode or bad usage'
complete -c hopsig -n "__fish_hopsig_using_subcommand help; and not __fish_seen_subcommand_from schemes keygen sign verify pkg ic kcx inspect bench bgpsec replay reproduce speaker ndn pla rtr batch completions man help" -f -a "pkg" -d 'Private Key Generator for identity-based aggregates (ibas-bls12381)'
complete -c hopsig -n "__fish_hopsig_using_subcommand help; and not __fish_seen_subcommand_from schemes keygen sign verify pkg ic kcx inspect bench bgpsec replay reproduce speaker ndn pla rtr batch completions man help" -f -a "ic" -d 'Implicit certificates for PLA (003 §II-C): TTP, request, issue, finalize, verify'
complete -c hopsig -n "__fish_hopsig_using_subcommand help; and not __fish_seen_subcommand_from schemes keygen sign verify pkg ic kcx inspect bench bgpsec replay reproduce speaker ndn pla rtr batch completions man help" -f -a "kcx" -d 'Keychain signatures for BGP (KC-RSA, KC-MT, hybrid)'
complete -c hopsig -n "__fish_hopsig_using_subcommand help; and not __fish_seen_subcommand_from schemes keygen sign verify pkg ic kcx inspect bench bgpsec replay reproduce speaker ndn pla rtr batch completions man help" -f -a "inspect" -d 'Say what a file holds: a key file of any scheme (PKG, parameters and user keys of ibas-bls12381, the files of `hopsig ic`), an aggregate of any scheme, an IBAS journal, a HORS counter file, benchmark results (`bench --json`, the JSON files of `reproduce`), replay results (`replay --json`, `reproduce`\'s replay.json), a plain PEM / DER key or a bare signature. The report.md and SVG plots of `reproduce` are for people, not hopsig formats: they are reported as unknown'
complete -c hopsig -n "__fish_hopsig_using_subcommand help; and not __fish_seen_subcommand_from schemes keygen sign verify pkg ic kcx inspect bench bgpsec replay reproduce speaker ndn pla rtr batch completions man help" -f -a "bench" -d 'Run a benchmark suite (table1, table2, table3, table5, fig4, bgpsec, speaker, ndn, rpki, pla, rtr-sync)'
complete -c hopsig -n "__fish_hopsig_using_subcommand help; and not __fish_seen_subcommand_from schemes keygen sign verify pkg ic kcx inspect bench bgpsec replay reproduce speaker ndn pla rtr batch completions man help" -f -a "bgpsec" -d 'BGPsec: router keys, signed MRT files, validation, inspection'
complete -c hopsig -n "__fish_hopsig_using_subcommand help; and not __fish_seen_subcommand_from schemes keygen sign verify pkg ic kcx inspect bench bgpsec replay reproduce speaker ndn pla rtr batch completions man help" -f -a "replay" -d 'Replay one peer of an MRT trace through a router for each scheme: each announcement validated and signed for real, the measured times queued at the trace\'s arrival times (KC-x §V-A-3). Prints Tables IV and V beside the paper\'s; writes Fig. 5'
complete -c hopsig -n "__fish_hopsig_using_subcommand help; and not __fish_seen_subcommand_from schemes keygen sign verify pkg ic kcx inspect bench bgpsec replay reproduce speaker ndn pla rtr batch completions man help" -f -a "reproduce" -d 'Measure and print each paper table beside the paper\'s; write a report with plots'
complete -c hopsig -n "__fish_hopsig_using_subcommand help; and not __fish_seen_subcommand_from schemes keygen sign verify pkg ic kcx inspect bench bgpsec replay reproduce speaker ndn pla rtr batch completions man help" -f -a "speaker" -d 'A BGP-4 speaker with BGPsec: strict or lazy validation'
complete -c hopsig -n "__fish_hopsig_using_subcommand help; and not __fish_seen_subcommand_from schemes keygen sign verify pkg ic kcx inspect bench bgpsec replay reproduce speaker ndn pla rtr batch completions man help" -f -a "ndn" -d '004\'s publisher, moderator and subscriber over an NDN forwarder'
complete -c hopsig -n "__fish_hopsig_using_subcommand help; and not __fish_seen_subcommand_from schemes keygen sign verify pkg ic kcx inspect bench bgpsec replay reproduce speaker ndn pla rtr batch completions man help" -f -a "pla" -d 'Packet Level Authentication on IPv6 captures'
complete -c hopsig -n "__fish_hopsig_using_subcommand help; and not __fish_seen_subcommand_from schemes keygen sign verify pkg ic kcx inspect bench bgpsec replay reproduce speaker ndn pla rtr batch completions man help" -f -a "rtr" -d 'RPKI-to-Router (RFC 6810, RFC 8210, draft-ietf-sidrops-8210bis): ask a cache what it serves, or serve files as a cache'
complete -c hopsig -n "__fish_hopsig_using_subcommand help; and not __fish_seen_subcommand_from schemes keygen sign verify pkg ic kcx inspect bench bgpsec replay reproduce speaker ndn pla rtr batch completions man help" -f -a "batch" -d 'Many MRT files on a Dask cluster, one task per file (through the Python package)'
complete -c hopsig -n "__fish_hopsig_using_subcommand help; and not __fish_seen_subcommand_from schemes keygen sign verify pkg ic kcx inspect bench bgpsec replay reproduce speaker ndn pla rtr batch completions man help" -f -a "completions" -d 'Print a shell completion script for hopsig on standard output'
complete -c hopsig -n "__fish_hopsig_using_subcommand help; and not __fish_seen_subcommand_from schemes keygen sign verify pkg ic kcx inspect bench bgpsec replay reproduce speaker ndn pla rtr batch completions man help" -f -a "man" -d 'Print hopsig\'s manual page (roff) on standard output, or write one page per command with `--out`'
complete -c hopsig -n "__fish_hopsig_using_subcommand help; and not __fish_seen_subcommand_from schemes keygen sign verify pkg ic kcx inspect bench bgpsec replay reproduce speaker ndn pla rtr batch completions man help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c hopsig -n "__fish_hopsig_using_subcommand help; and __fish_seen_subcommand_from pkg" -f -a "setup" -d 'Create a PKG: master secret to DIR/pkg.key (mode 0600), public parameters to DIR/params.pub'
complete -c hopsig -n "__fish_hopsig_using_subcommand help; and __fish_seen_subcommand_from pkg" -f -a "extract" -d 'Extract the private key of an identity (e.g. an NDN name) into FILE'
complete -c hopsig -n "__fish_hopsig_using_subcommand help; and __fish_seen_subcommand_from ic" -f -a "ttp" -d 'Create a TTP: DIR/ttp.key (0600) and DIR/ttp.pub'
complete -c hopsig -n "__fish_hopsig_using_subcommand help; and __fish_seen_subcommand_from ic" -f -a "request" -d 'Alice\'s blinded request: FILE (secret, 0600) and FILE.req for the TTP'
complete -c hopsig -n "__fish_hopsig_using_subcommand help; and __fish_seen_subcommand_from ic" -f -a "issue" -d 'The TTP certifies an identity for a request'
complete -c hopsig -n "__fish_hopsig_using_subcommand help; and __fish_seen_subcommand_from ic" -f -a "finalize" -d 'Alice\'s final key (an ecdsa-k* key file) and public certificate FILE.cert'
complete -c hopsig -n "__fish_hopsig_using_subcommand help; and __fish_seen_subcommand_from ic" -f -a "certify-key" -d 'The TTP signs a host\'s public key (PLA\'s certificate-based layout): a key certificate FILE for `hopsig pla sign-pcap --cert`'
complete -c hopsig -n "__fish_hopsig_using_subcommand help; and __fish_seen_subcommand_from ic" -f -a "verify" -d 'Verify a `hopsig sign` signature, extracting the key from the certificate in the same multi-scalar multiplication (exit 0 valid, 1 invalid, 2 input that does not decode)'
complete -c hopsig -n "__fish_hopsig_using_subcommand help; and __fish_seen_subcommand_from kcx" -f -a "path" -d 'Sign a route hop by hop along a simulated AS path, verify it, report sizes'
complete -c hopsig -n "__fish_hopsig_using_subcommand help; and __fish_seen_subcommand_from bgpsec" -f -a "keygen" -d 'Generate a BGPsec router key for an AS'
complete -c hopsig -n "__fish_hopsig_using_subcommand help; and __fish_seen_subcommand_from bgpsec" -f -a "keys" -d 'List the router keys of an rpki-client JSON file or a keys folder'
complete -c hopsig -n "__fish_hopsig_using_subcommand help; and __fish_seen_subcommand_from bgpsec" -f -a "sign-mrt" -d 'Sign every announcement of an MRT file as the BGPsec UPDATE its AS path would carry'
complete -c hopsig -n "__fish_hopsig_using_subcommand help; and __fish_seen_subcommand_from bgpsec" -f -a "validate-mrt" -d 'Validate every BGPsec UPDATE of an MRT file, on every core'
complete -c hopsig -n "__fish_hopsig_using_subcommand help; and __fish_seen_subcommand_from bgpsec" -f -a "inspect" -d 'Print UPDATEs as bgpkit-parser does, with their Secure_Path and signatures'
complete -c hopsig -n "__fish_hopsig_using_subcommand help; and __fish_seen_subcommand_from bgpsec" -f -a "feed" -d 'Replay an MRT file\'s UPDATEs into a router under test, with fault injection'
complete -c hopsig -n "__fish_hopsig_using_subcommand help; and __fish_seen_subcommand_from speaker" -f -a "run" -d 'Run the speaker of CONFIG (TOML; docs/spec/speaker.md) until stopped'
complete -c hopsig -n "__fish_hopsig_using_subcommand help; and __fish_seen_subcommand_from speaker" -f -a "status" -d 'Show the sessions and routes of the speaker of CONFIG, from its state file'
complete -c hopsig -n "__fish_hopsig_using_subcommand help; and __fish_seen_subcommand_from speaker" -f -a "refresh" -d 'Ask the running speaker of CONFIG to request a route refresh (RFC 2918) from NEIGHBOR: it sends a ROUTE-REFRESH within half a second'
complete -c hopsig -n "__fish_hopsig_using_subcommand help; and __fish_seen_subcommand_from speaker" -f -a "show" -d 'Ask the running speaker of CONFIG through its read-only HTTP API ([http] listen): neighbours, routes received and sent, Not Valid routes, the RPKI view'
complete -c hopsig -n "__fish_hopsig_using_subcommand help; and __fish_seen_subcommand_from speaker" -f -a "reload" -d 'Ask the running speaker of CONFIG to read CONFIG again and apply it without a restart (as SIGHUP does; docs/guide/reload.md): waits for its answer and prints what changed; exit 2 if the new configuration is refused (the running one stays) or the speaker does not answer'
complete -c hopsig -n "__fish_hopsig_using_subcommand help; and __fish_seen_subcommand_from ndn" -f -a "publisher" -d 'Publish a message: answer the moderator\'s Interests (2) with Data (3)'
complete -c hopsig -n "__fish_hopsig_using_subcommand help; and __fish_seen_subcommand_from ndn" -f -a "moderator" -d 'Moderate: answer Interests (1) with Data (4) built from the publisher\'s (3)'
complete -c hopsig -n "__fish_hopsig_using_subcommand help; and __fish_seen_subcommand_from ndn" -f -a "subscriber" -d 'Fetch and verify the moderator\'s Data (4); print the message'
complete -c hopsig -n "__fish_hopsig_using_subcommand help; and __fish_seen_subcommand_from pla" -f -a "sign-pcap" -d 'Sign every IPv6 packet of a capture, as its sending host would'
complete -c hopsig -n "__fish_hopsig_using_subcommand help; and __fish_seen_subcommand_from pla" -f -a "verify-pcap" -d 'Check every packet of a capture, as a PLA router on the path would'
complete -c hopsig -n "__fish_hopsig_using_subcommand help; and __fish_seen_subcommand_from rtr" -f -a "dump" -d 'Connect to the cache at HOST:PORT, send one Reset Query and print what it serves up to End of Data: counts, every router key (ASN, SKI, key algorithm), VRPs and ASPAs. Protocol errors name the PDU and the error code'
complete -c hopsig -n "__fish_hopsig_using_subcommand help; and __fish_seen_subcommand_from rtr" -f -a "serve" -d 'Serve RPKI files as an RTR cache (versions 0-2): rpki-client JSON (roas, bgpsec_keys, aspas), Routinator jsonext (routerKeys), hopsig key folders, SLURM (RFC 8416, applied to the others). The sources are re-read when one changes: each change is a new serial, announced to the routers with a Serial Notify'
complete -c hopsig -n "__fish_hopsig_using_subcommand help; and __fish_seen_subcommand_from batch" -f -a "validate-mrt" -d 'Validate every BGPsec UPDATE of many MRT files, one Dask task per file'
