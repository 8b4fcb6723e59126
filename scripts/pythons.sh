# Sourced by the scripts that run on every supported CPython.

# find_python VERSION: prints the path of a CPython VERSION (e.g. 3.12) on
# PATH or installed by pyenv; fails when there is none.
find_python() {
    local version=$1 candidate
    for candidate in "python$version" "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$version".*/bin/"python$version"; do
        command -v "$candidate" > /dev/null 2>&1 || continue
        # A pyenv shim answers for versions it does not select: ask the interpreter.
        if "$candidate" -c "import sys; sys.exit(f'{sys.version_info[0]}.{sys.version_info[1]}' != '$version')" \
            2> /dev/null; then
            command -v "$candidate"
            return 0
        fi
    done
    return 1
}
