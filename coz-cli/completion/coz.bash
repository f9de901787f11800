# bash completion for coz (coz-amp). The options come from `coz COMMAND --help` at completion
# time, so they are always the installed coz's own; after `---` (or `--`) the words complete as
# the profiled program's command line.
_coz() {
  local cur prev words cword
  if declare -F _init_completion >/dev/null; then
    _init_completion || return
  else
    cur="${COMP_WORDS[COMP_CWORD]}"; prev="${COMP_WORDS[COMP_CWORD-1]}"
    words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD
  fi
  local i
  for ((i = 2; i < cword; i++)); do
    if [[ ${words[i]} == --- || ${words[i]} == -- ]]; then
      if declare -F _command_offset >/dev/null; then
        _command_offset $((i + 1))
      else
        COMPREPLY=($(compgen -c -- "$cur"))
      fi
      return
    fi
  done
  if ((cword == 1)); then
    COMPREPLY=($(compgen -W "run report plot coordinate compare help --help --version" -- "$cur"))
    return
  fi
  local command=${words[1]}
  case $command in
    help)
      COMPREPLY=($(compgen -W "run report plot coordinate compare --man" -- "$cur"))
      return ;;
    run | report | plot | coordinate | compare) ;;
    *) return ;;
  esac
  # File names one a line (mapfile), so a name with spaces or glob characters stays one word.
  case $prev in
    -o | --output)
      mapfile -t COMPREPLY < <(compgen -f -- "$cur"); compopt -o filenames 2>/dev/null
      return ;;
    --source-root)
      mapfile -t COMPREPLY < <(compgen -d -- "$cur"); compopt -o filenames 2>/dev/null
      return ;;
  esac
  if [[ $cur == -* ]]; then
    local options
    options=$("${words[0]}" "$command" --help 2>/dev/null | grep -oE -- '(^|[ ,])--?[a-zA-Z][a-zA-Z-]*' | tr -d ' ,')
    COMPREPLY=($(compgen -W "$options ---" -- "$cur"))
    return
  fi
  if [[ $command == report || $command == plot ]]; then
    mapfile -t COMPREPLY < <(compgen -f -X '!*.coz' -- "$cur"; compgen -d -- "$cur")
    compopt -o filenames 2>/dev/null
  fi
}
complete -F _coz coz
