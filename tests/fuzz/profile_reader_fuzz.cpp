// libFuzzer target: any bytes as a profile, through the reader (read_profile and the streaming
// ProfileData::read `coz report` uses) and the whole analysis and output of `coz report`.
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/causal_profile.h"
#include "fuzz/fuzz_support.h"
#include "output/report_output.h"
#include "record/profile_format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string path = coz::fuzz::as_file(data, size);
  std::vector<coz::Record> records;
  std::vector<coz::ParseError> errors;
  std::string error;
  if (!coz::read_profile(path, &records, &errors, &error)) {
    return 0;
  }
  coz::analysis::ProfileData streamed;
  if (!streamed.read(path, &error)) {
    abort();  // read_profile could read it
  }
  coz::analysis::ProfileData added;
  added.add(path, records);
  if (added.experiments().size() != streamed.experiments().size()) {
    abort();  // both ways of reading must agree
  }
  coz::analysis::Report report = coz::analysis::analyse(streamed, coz::fuzz::quick_options());
  coz::fuzz::check_report(report);
  for (coz::analysis::SortOrder order :
       {coz::analysis::SortOrder::kImpact, coz::analysis::SortOrder::kName}) {
    coz::analysis::rank_in_groups(&report.series, order);
    coz::output::RenderContext ctx{report, streamed, "impact"};
    coz::output::render_text(ctx);
    coz::output::render_json(ctx);
    coz::output::render_csv(ctx);
  }
  return 0;
}
