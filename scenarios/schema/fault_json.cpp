#include "scenarios/schema/fault_json.hpp"

#include <fmt/format.h>

#include <utility>

#include "sim/duration_text.hpp"

namespace locksim {
namespace {

// A node's name, or a role written as the file names it: {"role": "holder"}.
Json target_json(const std::string& target) {
    if (const Role* role = role_of(target)) return Json{{"role", role->name}};
    return target;
}

class JsonFaultWriter final : public FaultWriter {
public:
    void target(std::string_view field, const std::string& target) override { set(field, target_json(target)); }
    void sides(std::string_view field, const std::vector<std::string>& a, const std::vector<std::string>& b) override {
        if (b.empty() && a.size() == 1) {
            set(field, target_json(a.front()));  // one node cut off from every other
            return;
        }
        Json side_a = Json::array();
        for (const auto& target : a) side_a.push_back(target_json(target));
        set(field, Json::array({side_a, Json(b)}));
    }
    void link(std::string_view field, const std::string& from, const std::string& to) override {
        set(field, Json::array({target_json(from), to}));
    }
    void instant(std::string_view field, Instant at) override { set(field, format_duration(at - Instant{})); }
    void duration(std::string_view field, Duration value) override { set(field, format_duration(value)); }
    void odds(std::string_view field, Odds odds) override {
        set(field, fmt::format("{}/{}", odds.numerator, odds.denominator));
    }
    void text(std::string_view field, const std::string& text) override { set(field, text); }
    void flag(std::string_view field, bool value) override { set(field, value); }

    Json take() { return std::move(json_); }

private:
    void set(std::string_view field, Json value) { json_[std::string(field)] = std::move(value); }

    Json json_ = Json::object();
};

}  // namespace

Json fault_json(const Fault& fault) {
    JsonFaultWriter writer;
    std::visit([&](const auto& f) { f.write(writer); }, fault);
    return writer.take();
}

}  // namespace locksim
