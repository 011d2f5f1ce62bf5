// Scalar resolution: how an unquoted YAML scalar reads as a boolean or an
// integer, the way Kubernetes' YAML reader (go-yaml v2, YAML 1.1 booleans)
// resolves them for the fields Kuota decodes. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace kuota::codec {

// true/True/TRUE, yes/Yes/YES, on/On/ON, y/Y and their false counterparts.
bool IsYamlBool(std::string_view text);
std::optional<bool> ParseYamlBool(std::string_view text);

// Any YAML int or float spelling ("12", "-1.5", "2e3", ".inf"); for messages.
bool LooksLikeNumber(std::string_view text);

enum class IntParse { kOk, kNotInteger, kOutOfRange };
// A decimal integer with an optional sign. Leading zeros ("010", which YAML
// 1.1 reads as octal) and other bases are kNotInteger, so no value is ever
// read differently from how Kubernetes reads it.
IntParse ParseDecimalInt(std::string_view text, int64_t& out);

}  // namespace kuota::codec
