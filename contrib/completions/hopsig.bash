_hopsig() {
    local i cur prev opts cmd
    COMPREPLY=()
    if [[ "${BASH_VERSINFO[0]}" -ge 4 ]]; then
        cur="$2"
    else
        cur="${COMP_WORDS[COMP_CWORD]}"
    fi
    prev="$3"
    cmd=""
    opts=""

    for i in "${COMP_WORDS[@]:0:COMP_CWORD}"
    do
        case "${cmd},${i}" in
            ",$1")
                cmd="hopsig"
                ;;
            hopsig,batch)
                cmd="hopsig__subcmd__batch"
                ;;
            hopsig,bench)
                cmd="hopsig__subcmd__bench"
                ;;
            hopsig,bgpsec)
                cmd="hopsig__subcmd__bgpsec"
                ;;
            hopsig,completions)
                cmd="hopsig__subcmd__completions"
                ;;
            hopsig,help)
                cmd="hopsig__subcmd__help"
                ;;
            hopsig,ic)
                cmd="hopsig__subcmd__ic"
                ;;
            hopsig,inspect)
                cmd="hopsig__subcmd__inspect"
                ;;
            hopsig,kcx)
                cmd="hopsig__subcmd__kcx"
                ;;
            hopsig,keygen)
                cmd="hopsig__subcmd__keygen"
                ;;
            hopsig,man)
                cmd="hopsig__subcmd__man"
                ;;
            hopsig,ndn)
                cmd="hopsig__subcmd__ndn"
                ;;
            hopsig,pkg)
                cmd="hopsig__subcmd__pkg"
                ;;
            hopsig,pla)
                cmd="hopsig__subcmd__pla"
                ;;
            hopsig,replay)
                cmd="hopsig__subcmd__replay"
                ;;
            hopsig,reproduce)
                cmd="hopsig__subcmd__reproduce"
                ;;
            hopsig,rtr)
                cmd="hopsig__subcmd__rtr"
                ;;
            hopsig,schemes)
                cmd="hopsig__subcmd__schemes"
                ;;
            hopsig,sign)
                cmd="hopsig__subcmd__sign"
                ;;
            hopsig,speaker)
                cmd="hopsig__subcmd__speaker"
                ;;
            hopsig,verify)
                cmd="hopsig__subcmd__verify"
                ;;
            hopsig__subcmd__batch,help)
                cmd="hopsig__subcmd__batch__subcmd__help"
                ;;
            hopsig__subcmd__batch,validate-mrt)
                cmd="hopsig__subcmd__batch__subcmd__validate__subcmd__mrt"
                ;;
            hopsig__subcmd__batch__subcmd__help,help)
                cmd="hopsig__subcmd__batch__subcmd__help__subcmd__help"
                ;;
            hopsig__subcmd__batch__subcmd__help,validate-mrt)
                cmd="hopsig__subcmd__batch__subcmd__help__subcmd__validate__subcmd__mrt"
                ;;
            hopsig__subcmd__bgpsec,feed)
                cmd="hopsig__subcmd__bgpsec__subcmd__feed"
                ;;
            hopsig__subcmd__bgpsec,help)
                cmd="hopsig__subcmd__bgpsec__subcmd__help"
                ;;
            hopsig__subcmd__bgpsec,inspect)
                cmd="hopsig__subcmd__bgpsec__subcmd__inspect"
                ;;
            hopsig__subcmd__bgpsec,keygen)
                cmd="hopsig__subcmd__bgpsec__subcmd__keygen"
                ;;
            hopsig__subcmd__bgpsec,keys)
                cmd="hopsig__subcmd__bgpsec__subcmd__keys"
                ;;
            hopsig__subcmd__bgpsec,sign-mrt)
                cmd="hopsig__subcmd__bgpsec__subcmd__sign__subcmd__mrt"
                ;;
            hopsig__subcmd__bgpsec,validate-mrt)
                cmd="hopsig__subcmd__bgpsec__subcmd__validate__subcmd__mrt"
                ;;
            hopsig__subcmd__bgpsec__subcmd__help,feed)
                cmd="hopsig__subcmd__bgpsec__subcmd__help__subcmd__feed"
                ;;
            hopsig__subcmd__bgpsec__subcmd__help,help)
                cmd="hopsig__subcmd__bgpsec__subcmd__help__subcmd__help"
                ;;
            hopsig__subcmd__bgpsec__subcmd__help,inspect)
                cmd="hopsig__subcmd__bgpsec__subcmd__help__subcmd__inspect"
                ;;
            hopsig__subcmd__bgpsec__subcmd__help,keygen)
                cmd="hopsig__subcmd__bgpsec__subcmd__help__subcmd__keygen"
                ;;
            hopsig__subcmd__bgpsec__subcmd__help,keys)
                cmd="hopsig__subcmd__bgpsec__subcmd__help__subcmd__keys"
                ;;
            hopsig__subcmd__bgpsec__subcmd__help,sign-mrt)
                cmd="hopsig__subcmd__bgpsec__subcmd__help__subcmd__sign__subcmd__mrt"
                ;;
            hopsig__subcmd__bgpsec__subcmd__help,validate-mrt)
                cmd="hopsig__subcmd__bgpsec__subcmd__help__subcmd__validate__subcmd__mrt"
                ;;
            hopsig__subcmd__help,batch)
                cmd="hopsig__subcmd__help__subcmd__batch"
                ;;
            hopsig__subcmd__help,bench)
                cmd="hopsig__subcmd__help__subcmd__bench"
                ;;
            hopsig__subcmd__help,bgpsec)
                cmd="hopsig__subcmd__help__subcmd__bgpsec"
                ;;
            hopsig__subcmd__help,completions)
                cmd="hopsig__subcmd__help__subcmd__completions"
                ;;
            hopsig__subcmd__help,help)
                cmd="hopsig__subcmd__help__subcmd__help"
                ;;
            hopsig__subcmd__help,ic)
                cmd="hopsig__subcmd__help__subcmd__ic"
                ;;
            hopsig__subcmd__help,inspect)
                cmd="hopsig__subcmd__help__subcmd__inspect"
                ;;
            hopsig__subcmd__help,kcx)
                cmd="hopsig__subcmd__help__subcmd__kcx"
                ;;
            hopsig__subcmd__help,keygen)
                cmd="hopsig__subcmd__help__subcmd__keygen"
                ;;
            hopsig__subcmd__help,man)
                cmd="hopsig__subcmd__help__subcmd__man"
                ;;
            hopsig__subcmd__help,ndn)
                cmd="hopsig__subcmd__help__subcmd__ndn"
                ;;
            hopsig__subcmd__help,pkg)
                cmd="hopsig__subcmd__help__subcmd__pkg"
                ;;
            hopsig__subcmd__help,pla)
                cmd="hopsig__subcmd__help__subcmd__pla"
                ;;
            hopsig__subcmd__help,replay)
                cmd="hopsig__subcmd__help__subcmd__replay"
                ;;
            hopsig__subcmd__help,reproduce)
                cmd="hopsig__subcmd__help__subcmd__reproduce"
                ;;
            hopsig__subcmd__help,rtr)
                cmd="hopsig__subcmd__help__subcmd__rtr"
                ;;
            hopsig__subcmd__help,schemes)
                cmd="hopsig__subcmd__help__subcmd__schemes"
                ;;
            hopsig__subcmd__help,sign)
                cmd="hopsig__subcmd__help__subcmd__sign"
                ;;
            hopsig__subcmd__help,speaker)
                cmd="hopsig__subcmd__help__subcmd__speaker"
                ;;
            hopsig__subcmd__help,verify)
                cmd="hopsig__subcmd__help__subcmd__verify"
                ;;
            hopsig__subcmd__help__subcmd__batch,validate-mrt)
                cmd="hopsig__subcmd__help__subcmd__batch__subcmd__validate__subcmd__mrt"
                ;;
            hopsig__subcmd__help__subcmd__bgpsec,feed)
                cmd="hopsig__subcmd__help__subcmd__bgpsec__subcmd__feed"
                ;;
            hopsig__subcmd__help__subcmd__bgpsec,inspect)
                cmd="hopsig__subcmd__help__subcmd__bgpsec__subcmd__inspect"
                ;;
            hopsig__subcmd__help__subcmd__bgpsec,keygen)
                cmd="hopsig__subcmd__help__subcmd__bgpsec__subcmd__keygen"
                ;;
            hopsig__subcmd__help__subcmd__bgpsec,keys)
                cmd="hopsig__subcmd__help__subcmd__bgpsec__subcmd__keys"
                ;;
            hopsig__subcmd__help__subcmd__bgpsec,sign-mrt)
                cmd="hopsig__subcmd__help__subcmd__bgpsec__subcmd__sign__subcmd__mrt"
                ;;
            hopsig__subcmd__help__subcmd__bgpsec,validate-mrt)
                cmd="hopsig__subcmd__help__subcmd__bgpsec__subcmd__validate__subcmd__mrt"
                ;;
            hopsig__subcmd__help__subcmd__ic,certify-key)
                cmd="hopsig__subcmd__help__subcmd__ic__subcmd__certify__subcmd__key"
                ;;
            hopsig__subcmd__help__subcmd__ic,finalize)
                cmd="hopsig__subcmd__help__subcmd__ic__subcmd__finalize"
                ;;
            hopsig__subcmd__help__subcmd__ic,issue)
                cmd="hopsig__subcmd__help__subcmd__ic__subcmd__issue"
                ;;
            hopsig__subcmd__help__subcmd__ic,request)
                cmd="hopsig__subcmd__help__subcmd__ic__subcmd__request"
                ;;
            hopsig__subcmd__help__subcmd__ic,ttp)
                cmd="hopsig__subcmd__help__subcmd__ic__subcmd__ttp"
                ;;
            hopsig__subcmd__help__subcmd__ic,verify)
                cmd="hopsig__subcmd__help__subcmd__ic__subcmd__verify"
                ;;
            hopsig__subcmd__help__subcmd__kcx,path)
                cmd="hopsig__subcmd__help__subcmd__kcx__subcmd__path"
                ;;
            hopsig__subcmd__help__subcmd__ndn,moderator)
                cmd="hopsig__subcmd__help__subcmd__ndn__subcmd__moderator"
                ;;
            hopsig__subcmd__help__subcmd__ndn,publisher)
                cmd="hopsig__subcmd__help__subcmd__ndn__subcmd__publisher"
                ;;
            hopsig__subcmd__help__subcmd__ndn,subscriber)
                cmd="hopsig__subcmd__help__subcmd__ndn__subcmd__subscriber"
                ;;
            hopsig__subcmd__help__subcmd__pkg,extract)
                cmd="hopsig__subcmd__help__subcmd__pkg__subcmd__extract"
                ;;
            hopsig__subcmd__help__subcmd__pkg,setup)
                cmd="hopsig__subcmd__help__subcmd__pkg__subcmd__setup"
                ;;
            hopsig__subcmd__help__subcmd__pla,sign-pcap)
                cmd="hopsig__subcmd__help__subcmd__pla__subcmd__sign__subcmd__pcap"
                ;;
            hopsig__subcmd__help__subcmd__pla,verify-pcap)
                cmd="hopsig__subcmd__help__subcmd__pla__subcmd__verify__subcmd__pcap"
                ;;
            hopsig__subcmd__help__subcmd__rtr,dump)
                cmd="hopsig__subcmd__help__subcmd__rtr__subcmd__dump"
                ;;
            hopsig__subcmd__help__subcmd__rtr,serve)
                cmd="hopsig__subcmd__help__subcmd__rtr__subcmd__serve"
                ;;
            hopsig__subcmd__help__subcmd__speaker,refresh)
                cmd="hopsig__subcmd__help__subcmd__speaker__subcmd__refresh"
                ;;
            hopsig__subcmd__help__subcmd__speaker,reload)
                cmd="hopsig__subcmd__help__subcmd__speaker__subcmd__reload"
                ;;
            hopsig__subcmd__help__subcmd__speaker,run)
                cmd="hopsig__subcmd__help__subcmd__speaker__subcmd__run"
                ;;
            hopsig__subcmd__help__subcmd__speaker,show)
                cmd="hopsig__subcmd__help__subcmd__speaker__subcmd__show"
                ;;
            hopsig__subcmd__help__subcmd__speaker,status)
                cmd="hopsig__subcmd__help__subcmd__speaker__subcmd__status"
                ;;
            hopsig__subcmd__help__subcmd__speaker__subcmd__show,neighbor)
                cmd="hopsig__subcmd__help__subcmd__speaker__subcmd__show__subcmd__neighbor"
                ;;
            hopsig__subcmd__help__subcmd__speaker__subcmd__show,neighbors)
                cmd="hopsig__subcmd__help__subcmd__speaker__subcmd__show__subcmd__neighbors"
                ;;
            hopsig__subcmd__help__subcmd__speaker__subcmd__show,not-valid)
                cmd="hopsig__subcmd__help__subcmd__speaker__subcmd__show__subcmd__not__subcmd__valid"
                ;;
            hopsig__subcmd__help__subcmd__speaker__subcmd__show,rib-in)
                cmd="hopsig__subcmd__help__subcmd__speaker__subcmd__show__subcmd__rib__subcmd__in"
                ;;
            hopsig__subcmd__help__subcmd__speaker__subcmd__show,rib-out)
                cmd="hopsig__subcmd__help__subcmd__speaker__subcmd__show__subcmd__rib__subcmd__out"
                ;;
            hopsig__subcmd__help__subcmd__speaker__subcmd__show,rpki)
                cmd="hopsig__subcmd__help__subcmd__speaker__subcmd__show__subcmd__rpki"
                ;;
            hopsig__subcmd__ic,certify-key)
                cmd="hopsig__subcmd__ic__subcmd__certify__subcmd__key"
                ;;
            hopsig__subcmd__ic,finalize)
                cmd="hopsig__subcmd__ic__subcmd__finalize"
                ;;
            hopsig__subcmd__ic,help)
                cmd="hopsig__subcmd__ic__subcmd__help"
                ;;
            hopsig__subcmd__ic,issue)
                cmd="hopsig__subcmd__ic__subcmd__issue"
                ;;
            hopsig__subcmd__ic,request)
                cmd="hopsig__subcmd__ic__subcmd__request"
                ;;
            hopsig__subcmd__ic,ttp)
                cmd="hopsig__subcmd__ic__subcmd__ttp"
                ;;
            hopsig__subcmd__ic,verify)
                cmd="hopsig__subcmd__ic__subcmd__verify"
                ;;
            hopsig__subcmd__ic__subcmd__help,certify-key)
                cmd="hopsig__subcmd__ic__subcmd__help__subcmd__certify__subcmd__key"
                ;;
            hopsig__subcmd__ic__subcmd__help,finalize)
                cmd="hopsig__subcmd__ic__subcmd__help__subcmd__finalize"
                ;;
            hopsig__subcmd__ic__subcmd__help,help)
                cmd="hopsig__subcmd__ic__subcmd__help__subcmd__help"
                ;;
            hopsig__subcmd__ic__subcmd__help,issue)
                cmd="hopsig__subcmd__ic__subcmd__help__subcmd__issue"
                ;;
            hopsig__subcmd__ic__subcmd__help,request)
                cmd="hopsig__subcmd__ic__subcmd__help__subcmd__request"
                ;;
            hopsig__subcmd__ic__subcmd__help,ttp)
                cmd="hopsig__subcmd__ic__subcmd__help__subcmd__ttp"
                ;;
            hopsig__subcmd__ic__subcmd__help,verify)
                cmd="hopsig__subcmd__ic__subcmd__help__subcmd__verify"
                ;;
            hopsig__subcmd__kcx,help)
                cmd="hopsig__subcmd__kcx__subcmd__help"
                ;;
            hopsig__subcmd__kcx,path)
                cmd="hopsig__subcmd__kcx__subcmd__path"
                ;;
            hopsig__subcmd__kcx__subcmd__help,help)
                cmd="hopsig__subcmd__kcx__subcmd__help__subcmd__help"
                ;;
            hopsig__subcmd__kcx__subcmd__help,path)
                cmd="hopsig__subcmd__kcx__subcmd__help__subcmd__path"
                ;;
            hopsig__subcmd__ndn,help)
                cmd="hopsig__subcmd__ndn__subcmd__help"
                ;;
            hopsig__subcmd__ndn,moderator)
                cmd="hopsig__subcmd__ndn__subcmd__moderator"
                ;;
            hopsig__subcmd__ndn,publisher)
                cmd="hopsig__subcmd__ndn__subcmd__publisher"
                ;;
            hopsig__subcmd__ndn,subscriber)
                cmd="hopsig__subcmd__ndn__subcmd__subscriber"
                ;;
            hopsig__subcmd__ndn__subcmd__help,help)
                cmd="hopsig__subcmd__ndn__subcmd__help__subcmd__help"
                ;;
            hopsig__subcmd__ndn__subcmd__help,moderator)
                cmd="hopsig__subcmd__ndn__subcmd__help__subcmd__moderator"
                ;;
            hopsig__subcmd__ndn__subcmd__help,publisher)
                cmd="hopsig__subcmd__ndn__subcmd__help__subcmd__publisher"
                ;;
            hopsig__subcmd__ndn__subcmd__help,subscriber)
                cmd="hopsig__subcmd__ndn__subcmd__help__subcmd__subscriber"
                ;;
            hopsig__subcmd__pkg,extract)
                cmd="hopsig__subcmd__pkg__subcmd__extract"
                ;;
            hopsig__subcmd__pkg,help)
                cmd="hopsig__subcmd__pkg__subcmd__help"
                ;;
            hopsig__subcmd__pkg,setup)
                cmd="hopsig__subcmd__pkg__subcmd__setup"
                ;;
            hopsig__subcmd__pkg__subcmd__help,extract)
                cmd="hopsig__subcmd__pkg__subcmd__help__subcmd__extract"
                ;;
            hopsig__subcmd__pkg__subcmd__help,help)
                cmd="hopsig__subcmd__pkg__subcmd__help__subcmd__help"
                ;;
            hopsig__subcmd__pkg__subcmd__help,setup)
                cmd="hopsig__subcmd__pkg__subcmd__help__subcmd__setup"
                ;;
            hopsig__subcmd__pla,help)
                cmd="hopsig__subcmd__pla__subcmd__help"
                ;;
            hopsig__subcmd__pla,sign-pcap)
                cmd="hopsig__subcmd__pla__subcmd__sign__subcmd__pcap"
                ;;
            hopsig__subcmd__pla,verify-pcap)
                cmd="hopsig__subcmd__pla__subcmd__verify__subcmd__pcap"
                ;;
            hopsig__subcmd__pla__subcmd__help,help)
                cmd="hopsig__subcmd__pla__subcmd__help__subcmd__help"
                ;;
            hopsig__subcmd__pla__subcmd__help,sign-pcap)
                cmd="hopsig__subcmd__pla__subcmd__help__subcmd__sign__subcmd__pcap"
                ;;
            hopsig__subcmd__pla__subcmd__help,verify-pcap)
                cmd="hopsig__subcmd__pla__subcmd__help__subcmd__verify__subcmd__pcap"
                ;;
            hopsig__subcmd__rtr,dump)
                cmd="hopsig__subcmd__rtr__subcmd__dump"
                ;;
            hopsig__subcmd__rtr,help)
                cmd="hopsig__subcmd__rtr__subcmd__help"
                ;;
            hopsig__subcmd__rtr,serve)
                cmd="hopsig__subcmd__rtr__subcmd__serve"
                ;;
            hopsig__subcmd__rtr__subcmd__help,dump)
                cmd="hopsig__subcmd__rtr__subcmd__help__subcmd__dump"
                ;;
            hopsig__subcmd__rtr__subcmd__help,help)
                cmd="hopsig__subcmd__rtr__subcmd__help__subcmd__help"
                ;;
            hopsig__subcmd__rtr__subcmd__help,serve)
                cmd="hopsig__subcmd__rtr__subcmd__help__subcmd__serve"
                ;;
            hopsig__subcmd__speaker,help)
                cmd="hopsig__subcmd__speaker__subcmd__help"
                ;;
            hopsig__subcmd__speaker,refresh)
                cmd="hopsig__subcmd__speaker__subcmd__refresh"
                ;;
            hopsig__subcmd__speaker,reload)
                cmd="hopsig__subcmd__speaker__subcmd__reload"
                ;;
            hopsig__subcmd__speaker,run)
                cmd="hopsig__subcmd__speaker__subcmd__run"
                ;;
            hopsig__subcmd__speaker,show)
                cmd="hopsig__subcmd__speaker__subcmd__show"
                ;;
            hopsig__subcmd__speaker,status)
                cmd="hopsig__subcmd__speaker__subcmd__status"
                ;;
            hopsig__subcmd__speaker__subcmd__help,help)
                cmd="hopsig__subcmd__speaker__subcmd__help__subcmd__help"
                ;;
            hopsig__subcmd__speaker__subcmd__help,refresh)
                cmd="hopsig__subcmd__speaker__subcmd__help__subcmd__refresh"
                ;;
            hopsig__subcmd__speaker__subcmd__help,reload)
                cmd="hopsig__subcmd__speaker__subcmd__help__subcmd__reload"
                ;;
            hopsig__subcmd__speaker__subcmd__help,run)
                cmd="hopsig__subcmd__speaker__subcmd__help__subcmd__run"
                ;;
            hopsig__subcmd__speaker__subcmd__help,show)
                cmd="hopsig__subcmd__speaker__subcmd__help__subcmd__show"
                ;;
            hopsig__subcmd__speaker__subcmd__help,status)
                cmd="hopsig__subcmd__speaker__subcmd__help__subcmd__status"
                ;;
            hopsig__subcmd__speaker__subcmd__help__subcmd__show,neighbor)
                cmd="hopsig__subcmd__speaker__subcmd__help__subcmd__show__subcmd__neighbor"
                ;;
            hopsig__subcmd__speaker__subcmd__help__subcmd__show,neighbors)
                cmd="hopsig__subcmd__speaker__subcmd__help__subcmd__show__subcmd__neighbors"
                ;;
            hopsig__subcmd__speaker__subcmd__help__subcmd__show,not-valid)
                cmd="hopsig__subcmd__speaker__subcmd__help__subcmd__show__subcmd__not__subcmd__valid"
                ;;
            hopsig__subcmd__speaker__subcmd__help__subcmd__show,rib-in)
                cmd="hopsig__subcmd__speaker__subcmd__help__subcmd__show__subcmd__rib__subcmd__in"
                ;;
            hopsig__subcmd__speaker__subcmd__help__subcmd__show,rib-out)
                cmd="hopsig__subcmd__speaker__subcmd__help__subcmd__show__subcmd__rib__subcmd__out"
                ;;
            hopsig__subcmd__speaker__subcmd__help__subcmd__show,rpki)
                cmd="hopsig__subcmd__speaker__subcmd__help__subcmd__show__subcmd__rpki"
                ;;
            hopsig__subcmd__speaker__subcmd__show,help)
                cmd="hopsig__subcmd__speaker__subcmd__show__subcmd__help"
                ;;
            hopsig__subcmd__speaker__subcmd__show,neighbor)
                cmd="hopsig__subcmd__speaker__subcmd__show__subcmd__neighbor"
                ;;
            hopsig__subcmd__speaker__subcmd__show,neighbors)
                cmd="hopsig__subcmd__speaker__subcmd__show__subcmd__neighbors"
                ;;
            hopsig__subcmd__speaker__subcmd__show,not-valid)
                cmd="hopsig__subcmd__speaker__subcmd__show__subcmd__not__subcmd__valid"
                ;;
            hopsig__subcmd__speaker__subcmd__show,rib-in)
                cmd="hopsig__subcmd__speaker__subcmd__show__subcmd__rib__subcmd__in"
                ;;
            hopsig__subcmd__speaker__subcmd__show,rib-out)
                cmd="hopsig__subcmd__speaker__subcmd__show__subcmd__rib__subcmd__out"
                ;;
            hopsig__subcmd__speaker__subcmd__show,rpki)
                cmd="hopsig__subcmd__speaker__subcmd__show__subcmd__rpki"
                ;;
            hopsig__subcmd__speaker__subcmd__show__subcmd__help,help)
                cmd="hopsig__subcmd__speaker__subcmd__show__subcmd__help__subcmd__help"
                ;;
            hopsig__subcmd__speaker__subcmd__show__subcmd__help,neighbor)
                cmd="hopsig__subcmd__speaker__subcmd__show__subcmd__help__subcmd__neighbor"
                ;;
            hopsig__subcmd__speaker__subcmd__show__subcmd__help,neighbors)
                cmd="hopsig__subcmd__speaker__subcmd__show__subcmd__help__subcmd__neighbors"
                ;;
            hopsig__subcmd__speaker__subcmd__show__subcmd__help,not-valid)
                cmd="hopsig__subcmd__speaker__subcmd__show__subcmd__help__subcmd__not__subcmd__valid"
                ;;
            hopsig__subcmd__speaker__subcmd__show__subcmd__help,rib-in)
                cmd="hopsig__subcmd__speaker__subcmd__show__subcmd__help__subcmd__rib__subcmd__in"
                ;;
            hopsig__subcmd__speaker__subcmd__show__subcmd__help,rib-out)
                cmd="hopsig__subcmd__speaker__subcmd__show__subcmd__help__subcmd__rib__subcmd__out"
                ;;
            hopsig__subcmd__speaker__subcmd__show__subcmd__help,rpki)
                cmd="hopsig__subcmd__speaker__subcmd__show__subcmd__help__subcmd__rpki"
                ;;
            *)
                ;;
        esac
    done

    case "${cmd}" in
        hopsig)
            opts="-h -V --log-format --log-level --help --version schemes keygen sign verify pkg ic kcx inspect bench bgpsec replay reproduce speaker ndn pla rtr batch completions man help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 1 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__batch)
            opts="-h --log-format --log-level --help validate-mrt help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__batch__subcmd__help)
            opts="validate-mrt help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__batch__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__batch__subcmd__help__subcmd__validate__subcmd__mrt)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__batch__subcmd__validate__subcmd__mrt)
            opts="-h --keys --scheduler --workers --threads-per-worker --threads --retries --at --signature-cache --out --json --force --no-progress --python --log-format --log-level --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --keys)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --scheduler)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --workers)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --threads-per-worker)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --threads)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --retries)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --at)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --signature-cache)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --out)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --json)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --python)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__bench)
            opts="-h --quick --json --force --data --log-format --log-level --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --json)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --data)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__bgpsec)
            opts="-h --log-format --log-level --help keygen keys sign-mrt validate-mrt inspect feed help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__bgpsec__subcmd__feed)
            opts="-h --mrt --peer --local-address --local-as --remote-as --bgpsec --from-as --next-hop --limit --watch --watch-as --watch-address --watch-bgpsec --rate --timing --speedup --faults --fault-rate --seed --keys --suite --expired-key-json --status --router-pid --hold-time --connect-timeout --wait --settle --json --force --log-format --log-level --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --mrt)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --peer)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --local-address)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --local-as)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --remote-as)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --from-as)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --next-hop)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --limit)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --watch)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --watch-as)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --watch-address)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --rate)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --timing)
                    COMPREPLY=($(compgen -W "trace" -- "${cur}"))
                    return 0
                    ;;
                --speedup)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --faults)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --fault-rate)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --seed)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --keys)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --suite)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --expired-key-json)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --status)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --router-pid)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --hold-time)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --connect-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --wait)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --settle)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --json)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__bgpsec__subcmd__help)
            opts="keygen keys sign-mrt validate-mrt inspect feed help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__bgpsec__subcmd__help__subcmd__feed)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__bgpsec__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__bgpsec__subcmd__help__subcmd__inspect)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__bgpsec__subcmd__help__subcmd__keygen)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__bgpsec__subcmd__help__subcmd__keys)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__bgpsec__subcmd__help__subcmd__sign__subcmd__mrt)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__bgpsec__subcmd__help__subcmd__validate__subcmd__mrt)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__bgpsec__subcmd__inspect)
            opts="-h --json --log-format --log-level --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__bgpsec__subcmd__keygen)
            opts="-h --asn --out --suite --force --log-format --log-level --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --asn)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --out)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --suite)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__bgpsec__subcmd__keys)
            opts="-h --at --json --log-format --log-level --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --at)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__bgpsec__subcmd__sign__subcmd__mrt)
            opts="-h --suite --keys --limit --target-as --threads --json --force --log-format --log-level --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --suite)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --keys)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --limit)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --target-as)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --threads)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --json)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__bgpsec__subcmd__validate__subcmd__mrt)
            opts="-h --keys --rpki --rtr --role --at --threads --json --force --json-lines --signature-cache --log-format --log-level --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --keys)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --rpki)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --rtr)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --role)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --at)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --threads)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --json)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --signature-cache)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__completions)
            opts="-h --log-format --log-level --help bash zsh fish"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help)
            opts="schemes keygen sign verify pkg ic kcx inspect bench bgpsec replay reproduce speaker ndn pla rtr batch completions man help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__batch)
            opts="validate-mrt"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__batch__subcmd__validate__subcmd__mrt)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__bench)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__bgpsec)
            opts="keygen keys sign-mrt validate-mrt inspect feed"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__bgpsec__subcmd__feed)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__bgpsec__subcmd__inspect)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__bgpsec__subcmd__keygen)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__bgpsec__subcmd__keys)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__bgpsec__subcmd__sign__subcmd__mrt)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__bgpsec__subcmd__validate__subcmd__mrt)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__completions)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__ic)
            opts="ttp request issue finalize certify-key verify"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__ic__subcmd__certify__subcmd__key)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__ic__subcmd__finalize)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__ic__subcmd__issue)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__ic__subcmd__request)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__ic__subcmd__ttp)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__ic__subcmd__verify)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__inspect)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__kcx)
            opts="path"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__kcx__subcmd__path)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__keygen)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__man)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__ndn)
            opts="publisher moderator subscriber"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__ndn__subcmd__moderator)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__ndn__subcmd__publisher)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__ndn__subcmd__subscriber)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__pkg)
            opts="setup extract"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__pkg__subcmd__extract)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__pkg__subcmd__setup)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__pla)
            opts="sign-pcap verify-pcap"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__pla__subcmd__sign__subcmd__pcap)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__pla__subcmd__verify__subcmd__pcap)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__replay)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__reproduce)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__rtr)
            opts="dump serve"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__rtr__subcmd__dump)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__rtr__subcmd__serve)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__schemes)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__sign)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__speaker)
            opts="run status refresh show reload"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__speaker__subcmd__refresh)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__speaker__subcmd__reload)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__speaker__subcmd__run)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__speaker__subcmd__show)
            opts="neighbors neighbor rib-in rib-out not-valid rpki"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__speaker__subcmd__show__subcmd__neighbor)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__speaker__subcmd__show__subcmd__neighbors)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__speaker__subcmd__show__subcmd__not__subcmd__valid)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__speaker__subcmd__show__subcmd__rib__subcmd__in)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__speaker__subcmd__show__subcmd__rib__subcmd__out)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__speaker__subcmd__show__subcmd__rpki)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__speaker__subcmd__status)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__help__subcmd__verify)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__ic)
            opts="-h --curve --log-format --log-level --help ttp request issue finalize certify-key verify help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --curve)
                    COMPREPLY=($(compgen -W "k163 k233 k283" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__ic__subcmd__certify__subcmd__key)
            opts="-h --ttp --public --out --force --curve --log-format --log-level --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --ttp)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --public)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --out)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --curve)
                    COMPREPLY=($(compgen -W "k163 k233 k283" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__ic__subcmd__finalize)
            opts="-h --blind --issued --ttp-pub --out --force --curve --log-format --log-level --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --blind)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --issued)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ttp-pub)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --out)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --curve)
                    COMPREPLY=($(compgen -W "k163 k233 k283" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__ic__subcmd__help)
            opts="ttp request issue finalize certify-key verify help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__ic__subcmd__help__subcmd__certify__subcmd__key)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__ic__subcmd__help__subcmd__finalize)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__ic__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__ic__subcmd__help__subcmd__issue)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__ic__subcmd__help__subcmd__request)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__ic__subcmd__help__subcmd__ttp)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__ic__subcmd__help__subcmd__verify)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__ic__subcmd__issue)
            opts="-h --ttp --id --request --out --force --curve --log-format --log-level --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --ttp)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --id)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --request)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --out)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --curve)
                    COMPREPLY=($(compgen -W "k163 k233 k283" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__ic__subcmd__request)
            opts="-h --out --force --curve --log-format --log-level --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --out)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --curve)
                    COMPREPLY=($(compgen -W "k163 k233 k283" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__ic__subcmd__ttp)
            opts="-h --out --force --curve --log-format --log-level --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --out)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --curve)
                    COMPREPLY=($(compgen -W "k163 k233 k283" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__ic__subcmd__verify)
            opts="-h --ttp-pub --cert --msg --agg --curve --log-format --log-level --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --ttp-pub)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --msg)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agg)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --curve)
                    COMPREPLY=($(compgen -W "k163 k233 k283" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__inspect)
            opts="-h --json --log-format --log-level --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__kcx)
            opts="-h --log-format --log-level --help path help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__kcx__subcmd__help)
            opts="path help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__kcx__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__kcx__subcmd__help__subcmd__path)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__kcx__subcmd__path)
            opts="-h --variant --hops --suite --json --log-format --log-level --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --variant)
                    COMPREPLY=($(compgen -W "rsa mt hybrid" -- "${cur}"))
                    return 0
                    ;;
                --hops)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --suite)
                    COMPREPLY=($(compgen -W "modern paper" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__keygen)
            opts="-h --scheme --out --force --log-format --log-level --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --scheme)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --out)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__man)
            opts="-h --out --force --log-format --log-level --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --out)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__ndn)
            opts="-h --log-format --log-level --help publisher moderator subscriber help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__ndn__subcmd__help)
            opts="publisher moderator subscriber help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__ndn__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__ndn__subcmd__help__subcmd__moderator)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__ndn__subcmd__help__subcmd__publisher)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__ndn__subcmd__help__subcmd__subscriber)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__ndn__subcmd__moderator)
            opts="-h --forwarder --scheme --key --journal --new-journal --params --trust --id --count --log-format --log-level --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --forwarder)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --scheme)
                    COMPREPLY=($(compgen -W "ibas rsa ecdsa" -- "${cur}"))
                    return 0
                    ;;
                --key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --journal)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --params)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --trust)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --id)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --count)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__ndn__subcmd__publisher)
            opts="-h --forwarder --scheme --key --journal --new-journal --id --message --seq --count --log-format --log-level --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --forwarder)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --scheme)
                    COMPREPLY=($(compgen -W "ibas rsa ecdsa" -- "${cur}"))
                    return 0
                    ;;
                --key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --journal)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --id)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --message)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --seq)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --count)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__ndn__subcmd__subscriber)
            opts="-h --forwarder --scheme --params --trust --moderator --publisher --json --state-dir --log-format --log-level --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --forwarder)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --scheme)
                    COMPREPLY=($(compgen -W "ibas rsa ecdsa" -- "${cur}"))
                    return 0
                    ;;
                --params)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --trust)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --moderator)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --publisher)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --state-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__pkg)
            opts="-h --log-format --log-level --help setup extract help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__pkg__subcmd__extract)
            opts="-h --pkg --id --out --force --log-format --log-level --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --pkg)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --id)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --out)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__pkg__subcmd__help)
            opts="setup extract help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__pkg__subcmd__help__subcmd__extract)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__pkg__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__pkg__subcmd__help__subcmd__setup)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__pkg__subcmd__setup)
            opts="-h --out --force --log-format --log-level --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --out)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__pla)
            opts="-h --log-format --log-level --help sign-pcap verify-pcap help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__pla__subcmd__help)
            opts="sign-pcap verify-pcap help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__pla__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__pla__subcmd__help__subcmd__sign__subcmd__pcap)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__pla__subcmd__help__subcmd__verify__subcmd__pcap)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__pla__subcmd__sign__subcmd__pcap)
            opts="-h --key --cert --enroll --layout --ttp-id --force --log-format --log-level --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --enroll)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --layout)
                    COMPREPLY=($(compgen -W "implicit certificate" -- "${cur}"))
                    return 0
                    ;;
                --ttp-id)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__pla__subcmd__verify__subcmd__pcap)
            opts="-h --ttp-pub --ttp-id --threads --out --accepted-only --now --max-age --skew --max-sources --json --force --log-format --log-level --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --ttp-pub)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ttp-id)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --threads)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --out)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --now)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-age)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --skew)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-sources)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --json)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__replay)
            opts="-h --schemes --peer --mode --threads --speedup --limit --batch --rib --json --out --force --rtr --log-format --log-level --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --schemes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --peer)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mode)
                    COMPREPLY=($(compgen -W "lazy strict" -- "${cur}"))
                    return 0
                    ;;
                --threads)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --speedup)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --limit)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --batch)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --rib)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --json)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --out)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --rtr)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__reproduce)
            opts="-h --quick --out --force --data --log-format --log-level --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --out)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --data)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__rtr)
            opts="-h --log-format --log-level --help dump serve help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__rtr__subcmd__dump)
            opts="-h --version --json --summary --timeout --log-format --log-level --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --version)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__rtr__subcmd__help)
            opts="dump serve help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__rtr__subcmd__help__subcmd__dump)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__rtr__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__rtr__subcmd__help__subcmd__serve)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__rtr__subcmd__serve)
            opts="-h --source --listen --refresh --retry --expire --max-version --poll --log-format --log-level --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --source)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --listen)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --refresh)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --retry)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --expire)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-version)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --poll)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__schemes)
            opts="-h --json --log-format --log-level --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__sign)
            opts="-h --key --scheme --msg --agg --out --force --journal --state-dir --new-journal --log-format --log-level --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --scheme)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --msg)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agg)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --out)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --journal)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --state-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__speaker)
            opts="-h --log-format --log-level --help run status refresh show reload help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__speaker__subcmd__help)
            opts="run status refresh show reload help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__speaker__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__speaker__subcmd__help__subcmd__refresh)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__speaker__subcmd__help__subcmd__reload)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__speaker__subcmd__help__subcmd__run)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__speaker__subcmd__help__subcmd__show)
            opts="neighbors neighbor rib-in rib-out not-valid rpki"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__speaker__subcmd__help__subcmd__show__subcmd__neighbor)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__speaker__subcmd__help__subcmd__show__subcmd__neighbors)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__speaker__subcmd__help__subcmd__show__subcmd__not__subcmd__valid)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__speaker__subcmd__help__subcmd__show__subcmd__rib__subcmd__in)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__speaker__subcmd__help__subcmd__show__subcmd__rib__subcmd__out)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__speaker__subcmd__help__subcmd__show__subcmd__rpki)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__speaker__subcmd__help__subcmd__status)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__speaker__subcmd__refresh)
            opts="-h --log-format --log-level --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__speaker__subcmd__reload)
            opts="-h --wait --log-format --log-level --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --wait)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__speaker__subcmd__run)
            opts="-h --log-format --log-level --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__speaker__subcmd__show)
            opts="-h --json --log-format --log-level --help neighbors neighbor rib-in rib-out not-valid rpki help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__speaker__subcmd__show__subcmd__help)
            opts="neighbors neighbor rib-in rib-out not-valid rpki help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__speaker__subcmd__show__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__speaker__subcmd__show__subcmd__help__subcmd__neighbor)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__speaker__subcmd__show__subcmd__help__subcmd__neighbors)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__speaker__subcmd__show__subcmd__help__subcmd__not__subcmd__valid)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__speaker__subcmd__show__subcmd__help__subcmd__rib__subcmd__in)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__speaker__subcmd__show__subcmd__help__subcmd__rib__subcmd__out)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__speaker__subcmd__show__subcmd__help__subcmd__rpki)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__speaker__subcmd__show__subcmd__neighbor)
            opts="-h --json --log-format --log-level --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__speaker__subcmd__show__subcmd__neighbors)
            opts="-h --json --log-format --log-level --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__speaker__subcmd__show__subcmd__not__subcmd__valid)
            opts="-h --json --log-format --log-level --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__speaker__subcmd__show__subcmd__rib__subcmd__in)
            opts="-h --prefix --state --neighbor --json --log-format --log-level --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --prefix)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --state)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --neighbor)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__speaker__subcmd__show__subcmd__rib__subcmd__out)
            opts="-h --json --log-format --log-level --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__speaker__subcmd__show__subcmd__rpki)
            opts="-h --json --log-format --log-level --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__speaker__subcmd__status)
            opts="-h --json --log-format --log-level --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hopsig__subcmd__verify)
            opts="-h --scheme --pub --id --pkg --params --msg --agg --log-format --log-level --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --scheme)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --pub)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --id)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --pkg)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --params)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --msg)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agg)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
    esac
}

if [[ "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 || "${BASH_VERSINFO[0]}" -gt 4 ]]; then
    complete -F _hopsig -o nosort -o bashdefault -o default hopsig
else
    complete -F _hopsig -o bashdefault -o default hopsig
fi
