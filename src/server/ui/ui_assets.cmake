# Included by src/CMakeLists.txt: embed the /ui page (src/server/ui/*) into
# the server layer as ui_assets.c, regenerated when any of its files changes.
file(GLOB SBX_UI_ASSETS CONFIGURE_DEPENDS
     ${CMAKE_CURRENT_SOURCE_DIR}/server/ui/*.html
     ${CMAKE_CURRENT_SOURCE_DIR}/server/ui/*.js
     ${CMAKE_CURRENT_SOURCE_DIR}/server/ui/*.css)
set(SBX_UI_C ${CMAKE_CURRENT_BINARY_DIR}/ui_assets.c)
add_custom_command(
  OUTPUT ${SBX_UI_C}
  COMMAND ${CMAKE_COMMAND} -DUI_DIR=${CMAKE_CURRENT_SOURCE_DIR}/server/ui
          -DOUT=${SBX_UI_C} -P ${CMAKE_CURRENT_SOURCE_DIR}/server/ui/embed.cmake
  DEPENDS ${SBX_UI_ASSETS} ${CMAKE_CURRENT_SOURCE_DIR}/server/ui/embed.cmake
  COMMENT "Embedding the /ui page"
  VERBATIM)
target_sources(sbx_server PRIVATE ${SBX_UI_C})
