# Third-party libraries, all from distro packages (Debian 12 and Ubuntu 24.04 versions differ:
# CLI11 2.1/2.4, spdlog 1.10/1.12, Catch2 v2/v3 -- the code accepts both of each).
find_package(CLI11 REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(spdlog REQUIRED)
find_package(Threads REQUIRED)

if(MOETUNE_BUILD_TESTS)
  find_package(Catch2 REQUIRED)
  if(Catch2_VERSION VERSION_GREATER_EQUAL 3)
    set(MOETUNE_CATCH2_V3 ON)
  else()
    set(MOETUNE_CATCH2_V3 OFF)
  endif()
  message(STATUS "moetune: Catch2 ${Catch2_VERSION}")
endif()
