"""lint-npu round 16: environment-variable values read from torch_npu's C++ readers (scripts/cpp_env_readers.py, called
by scripts/extract_env_value_parsers.py): ``strtol`` held to a switch, a map of allowed keys, a checked bound, a
warned reset; a comparison with literals; options registered from the environment; a reader function whose copy of the
value is split, counted and clamped (round 25v). Tested on a source written for
the test, then through lint-npu's entry point on the generated table."""

from __future__ import annotations

from test_lint_env_parsers import _load
from test_lint_values import lint  # noqa: F401  (the module's fixture: one npu cell through check_notebook)

from npulab.env import env_vars, value_grammar

cpp = _load("cpp_env_readers")
parsers = _load("extract_env_value_parsers")

HEADER = '''
static std::unordered_map<int32_t, std::string> getLevelMode()
{
    std::unordered_map<int32_t, std::string> levelMode = {{0, "off"}, {1, "low"}, {2, "high"}};
    return levelMode;
}
'''

SOURCE = r'''
char* read_env(const char* env_str)
{
    char* env_val = std::getenv(env_str);
    if (env_val != nullptr) {
        LOGI("get env %s = %s", env_str, env_val);
    }
    return env_val;
}

int Options::GetFlag(const char* env_str, int defaultVal)
{
    char* env_val = read_env(env_str);
    int64_t envFlag = (env_val != nullptr) ? strtol(env_val, nullptr, 10) : defaultVal;
    return (envFlag != 0) ? 1 : 0;
}

uint32_t Options::Mode()
{
    char* env_val = read_env("PKG_MODE");  // a switch whose default raises
    int64_t flag = (env_val != nullptr) ? strtol(env_val, nullptr, 10) : 1;
    switch (flag) {
        case 0:
            break;
        case 3:
            break;
        default:
            TORCH_CHECK(false, "PKG_MODE should be 0 or 3");
    }
    return flag;
}

uint32_t Options::Level()
{
    char* level_val = read_env("PKG_LEVEL");
    int64_t level =
        (level_val != nullptr) ? strtol(level_val, nullptr, 10) : 0;
    std::unordered_map<int32_t, std::string> levels = getLevelMode();
    if (levels.find(level) == levels.end()) {
        TORCH_CHECK(false, "PKG_LEVEL should be 0, 1 or 2.");
    }
    return level;
}

uint32_t Options::Size()
{
    char* buf_val = read_env("PKG_SIZE");
    int64_t size = (buf_val != nullptr) ? strtol(buf_val, nullptr, 10) : 20;
    TORCH_CHECK(size > 0, "PKG_SIZE should be positive.");
    return size;
}

uint32_t Options::Streams()
{
    char* val = read_env("PKG_STREAMS");
    int64_t streams = (val != nullptr) ? strtol(val, nullptr, 10) : 16;
    if (streams != 4 && streams != 16) {
        streams = 16;
        TORCH_NPU_WARN_ONCE("PKG_STREAMS only supports 4 or 16");
    }
    return streams;
}

bool Options::Enabled()
{
    return GetFlag("PKG_ENABLED", 0) != 0;
}

bool Deterministic()
{
    const char* envValue = std::getenv("PKG_STRICT");
    if (envValue != nullptr) {
        std::string valueStr(envValue);
        std::transform(valueStr.begin(), valueStr.end(), valueStr.begin(), ::tolower);
        if (valueStr == "true") {
            return true;
        }
    }
    return false;
}

std::string Options::Path()
{
    char* path = read_env("PKG_PATH");
    return path != nullptr ? std::string(path) : "";
}

std::vector<std::string> Options::Cut(const std::string& text, char sep);

std::pair<double, double> Options::Bounds(const std::string& env_name, std::pair<double, double> fallback)
{
    char* raw = read_env(env_name.c_str());
    std::string text = (raw != nullptr) ? std::string(raw) : "";
    std::vector<std::string> pieces = Cut(text, ';');
    if (pieces.size() != 2) {
        return fallback;
    }
    double low = std::stod(pieces[0]);
    low = low >= 8 ? low : 8;
    double high = std::stod(pieces[1]);
    high = high >= 8 ? high : 8;
    return std::make_pair(low, high);
}

std::pair<double, double> Options::WindowBounds()
{
    return Bounds("PKG_WINDOW", std::make_pair(64.0, 16.0));
}

int Options::Pick(const std::string& env_name)
{
    char* raw = read_env(env_name.c_str());
    return raw != nullptr ? 1 : 0;
}

int Options::Picked()
{
    return Pick("PKG_PICKED");
}

REGISTER_OPTION_INIT_BY_ENV(pkg_fast)
REGISTER_OPTION_BOOL_FUNCTION(CheckFast, pkg_fast, "0", "1")
REGISTER_OPTION_BOOL_FUNCTION(CheckHook, PKG_HOOK, "disable", "enable")
'''


def _got() -> dict:
    readers = cpp.env_readers({"src/options.cpp": SOURCE, "src/options.h": HEADER})
    return {name: (spec, enforced) for name, spec, enforced, _ in parsers.cpp_readings(readers)}, readers


def test_each_cpp_idiom_gives_its_grammar():
    got, readers = _got()
    assert got["PKG_MODE"] == ({"enum": ["0", "3"]}, True)  # switch, default raises
    assert got["PKG_LEVEL"] == ({"enum": ["0", "1", "2"]}, True)  # the map's literal keys
    assert got["PKG_SIZE"] == ({"int": [1, None]}, True)  # TORCH_CHECK(size > 0)
    assert got["PKG_STREAMS"] == ({"enum": ["4", "16"]}, False)  # warned and reset: not the parser's contract
    assert got["PKG_ENABLED"] == ({"integer": True}, False)  # through the strtol helper
    assert got["PKG_STRICT"] == ({"enum": ["false", "true"], "case_insensitive": True}, False)
    assert got["PKG_FAST"] == ({"enum": ["0", "1"]}, False)  # an option registered from the environment
    assert "PKG_HOOK" not in got  # an option the environment does not set
    assert "PKG_PATH" not in got and readers["PKG_PATH"][0]["open"]  # returned: open
    # a reader function followed at its call: split on ';', two items or the fallback, each clamped at 8
    assert got["PKG_WINDOW"] == ({"list": {"float": [8, None]}, "count": 2, "separator": ";", "ignore_spaces": True},
                                 False)
    assert "PKG_PICKED" not in got  # a reader function that only tests presence closes nothing


def test_a_counted_list_judges_count_and_items():
    spec = _got()[0]["PKG_WINDOW"][0]
    assert value_grammar.problem("64;16", spec) is None and value_grammar.problem("64; 16", spec) is None
    assert "2" in value_grammar.problem("64", spec)  # one item: the reader falls back to its default
    assert value_grammar.problem("64;16;4", spec) and value_grammar.problem("64;2", spec)  # 2 is read as 8
    assert value_grammar.problem("64,16", spec)  # another separator is one item
    # the pinned torch_npu's own reader of this form (OptionsManager::GetSilenceThresh), in the generated table
    values = env_vars.table()["values"]
    assert values["NPU_ASD_UPPER_THRESH"]["count"] == 2 and values["NPU_ASD_UPPER_THRESH"]["list"] == {"float": [3, None]}


def test_grammars_judge_values_as_the_reader_does():
    got, _ = _got()
    assert value_grammar.problem("2", got["PKG_MODE"][0]) and value_grammar.problem("3", got["PKG_MODE"][0]) is None
    assert value_grammar.problem("0", got["PKG_SIZE"][0]) and value_grammar.problem("64", got["PKG_SIZE"][0]) is None
    assert value_grammar.problem("true", got["PKG_ENABLED"][0]) and value_grammar.problem("2", got["PKG_ENABLED"][0]) is None


def test_an_enforced_reader_wins_over_the_hand_table(lint):  # noqa: F811
    values = env_vars.table()["values"]
    # torch_npu v26.1.0-pytorch2.12.0 OptionsManager.cpp raises outside {0, 1, 2, 3}; the page says 0 or 1
    assert values["HCCL_ASYNC_ERROR_HANDLING"]["enum"] == ["0", "1", "2", "3"]
    assert values["ACL_DEVICE_SYNC_TIMEOUT"]["int"] == [1, None]  # TORCH_CHECK(envFlag > 0); its unit stays
    assert values["ACL_DEVICE_SYNC_TIMEOUT"]["unit_en"] == "seconds"
    assert "enforced" not in values["HCCL_ASYNC_ERROR_HANDLING"]
    # c10d getCvarBool raises on any other spelling too: its set wins over the page's 0/1
    assert value_grammar.problem("true", values["TORCH_HCCL_BLOCKING_WAIT"]) is None
    planted = ('import os\nos.environ["HCCL_ASYNC_ERROR_HANDLING"] = "4"\nos.environ["ACL_DEVICE_SYNC_TIMEOUT"] = "0"\n'
               'os.environ["RESUME_MODE_ENABLE"] = "true"\nos.environ["ACL_OP_INIT_MODE"] = "3"\n')
    twin = ('import os\nos.environ["HCCL_ASYNC_ERROR_HANDLING"] = "2"\nos.environ["ACL_DEVICE_SYNC_TIMEOUT"] = "300"\n'
            'os.environ["RESUME_MODE_ENABLE"] = "1"\nos.environ["ACL_OP_INIT_MODE"] = "1"\n')
    got = {f.name: f for f in lint(planted)}
    assert {name: f.kind for name, f in got.items()} == {
        "HCCL_ASYNC_ERROR_HANDLING": "env-value", "ACL_DEVICE_SYNC_TIMEOUT": "env-value",
        "RESUME_MODE_ENABLE": "env-value", "ACL_OP_INIT_MODE": "env-value"}
    assert "OptionsManager.cpp" in got["RESUME_MODE_ENABLE"].message  # the reader is named
    assert lint(twin) == []
